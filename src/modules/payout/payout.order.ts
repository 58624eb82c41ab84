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

/** Calldata of `execute(order, signature)` on the PayoutRouter. */
export function executeCalldata(p: OrderFields, signature: string): string {
  const m = orderTypedData(p).message;
  return PAYOUT_ROUTER.encodeFunctionData('execute', [
    [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
    signature,
  ]);
}
