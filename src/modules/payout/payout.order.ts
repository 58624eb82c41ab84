import { Interface } from 'ethers';
import { abi } from '../../chains/contracts.ts';
import { buildPayoutTypedData, type PayoutTypedData } from '../../chains/payout-typed-data.ts';

/**
 * The signed order of a single payout, rebuilt from what the payout row pinned at creation: the
 * `typed_data` handed to the merchant (identical on every rebuild, so a signature stays valid) and
 * the router call that executes it.
 */

export const PAYOUT_ROUTER = new Interface(abi('PayoutRouter'));
export const PAYOUT_EXECUTED_TOPIC = PAYOUT_ROUTER.getEvent('PayoutExecuted')!.topicHash;

/** The pinned fields an order is made of. */
export interface OrderFields {
  chainId: number;
  router: string;
  tokenAddress: string;
  payer: string;
  recipientHex: string;
  amountRaw: string;
  nonce: string;
  deadline: number;
}

/** `typed_data` exactly as section 2.4 and D7 describe it. */
export function orderTypedData(p: OrderFields): PayoutTypedData {
  return buildPayoutTypedData({
    chainId: p.chainId,
    router: p.router,
    token: p.tokenAddress,
    merchant: p.payer,
    recipient: p.recipientHex,
    amount: p.amountRaw,
    nonce: p.nonce,
    deadline: p.deadline,
  });
}

const EXECUTE_SELECTOR = PAYOUT_ROUTER.getFunction('execute')!.selector;

/**
 * Calldata of `execute(order, signature)` on the PayoutRouter, written out by hand: the order is a
 * static tuple of six words and the signature 65 bytes, so the ABI layout is fixed (six words, the
 * signature's offset, its length, its bytes padded to whole words). ethers' coder built and checked an
 * object per field for the same bytes, on every authorization; test/payout/order-calldata.test.ts holds
 * the two equal. `typedData` is the order's, when the caller has built it already.
 */
export function executeCalldata(p: OrderFields, signature: string, typedData = orderTypedData(p)): string {
  const m = typedData.message;
  const sig = signature.startsWith('0x') ? signature.slice(2) : signature;
  if (!/^[0-9a-fA-F]*$/.test(sig) || sig.length % 2 !== 0) throw new TypeError('signature: not hex bytes');
  const bytes = sig.length / 2;
  return `${EXECUTE_SELECTOR}${[
    word(m.token),
    word(m.merchant),
    word(m.recipient),
    word(BigInt(m.amount)),
    word(BigInt(m.nonce)),
    word(BigInt(m.deadline)),
    word(7n * 32n),
    word(BigInt(bytes)),
  ].join('')}${sig.toLowerCase().padEnd(Math.ceil(bytes / 32) * 64, '0')}`;
}

/** One ABI word: an address (checksummed `0x`) or a uint256, as 64 lowercase hex digits. */
function word(value: string | bigint): string {
  const hex = typeof value === 'string' ? value.slice(2).toLowerCase() : value.toString(16);
  return hex.padStart(64, '0');
}
