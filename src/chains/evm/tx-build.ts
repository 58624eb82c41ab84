import { AppError, validation } from '../../errors.ts';
import { isRevert } from './rpc/errors.ts';
import type { RpcOutcome, RpcTransport } from './rpc/transport.ts';
import { address, type Hex, quantity, toHex } from './util.ts';

/**
 * Builds unsigned transactions for a wallet to sign: nonce from the pending pool, gas from an estimate
 * plus a margin, and fees either as a legacy `gasPrice` (what the approval object of section 2.7
 * carries, and what every wallet accepts) or as EIP-1559 fields.
 */

/** Added to the gas estimate: estimates are exact for the current state, which may move. */
export const GAS_LIMIT_MARGIN_PERCENT = 25n;
/** Added to eth_gasPrice for legacy builds, so a base-fee rise of a block or two does not strand it. */
export const GAS_PRICE_MARGIN_PERCENT = 20n;
/** EIP-1559 maxFeePerGas = this × latest base fee + tip: survives several full blocks of base-fee growth. */
export const BASE_FEE_MULTIPLIER = 2n;

/** `legacy`: type 0 with gasPrice; `eip1559`: type 2; `auto`: type 2 when the chain has a base fee. */
export type FeeMode = 'legacy' | 'eip1559' | 'auto';

export interface TxRequest {
  from: string;
  to: string;
  data?: string;
  value?: bigint;
  /** Defaults to the sender's pending nonce. */
  nonce?: number;
  /** Defaults to the estimate plus GAS_LIMIT_MARGIN_PERCENT. */
  gas?: bigint;
}

/** Exactly the EVM `transaction` fields of section 2.7, all hex strings. */
export interface LegacyTx {
  from: string;
  to: string;
  data: Hex;
  value: Hex;
  nonce: Hex;
  gas: Hex;
  gasPrice: Hex;
  chainId: Hex;
}

export interface Eip1559Tx extends Omit<LegacyTx, 'gasPrice'> {
  type: '0x2';
  maxFeePerGas: Hex;
  maxPriorityFeePerGas: Hex;
}

export type UnsignedTx = LegacyTx | Eip1559Tx;

/** Builds the transaction; `validation` when it would revert, `unavailable` when the node is down. */
export async function buildTransaction(
  transport: RpcTransport,
  chainId: number,
  request: TxRequest,
  feeMode: FeeMode = 'auto',
): Promise<UnsignedTx> {
  const from = address(request.from, 'from');
  const to = address(request.to, 'to');
  const data = (request.data ?? '0x') as Hex;
  if (!/^0x([0-9a-fA-F]{2})*$/.test(data)) throw validation('data must be 0x-prefixed hex bytes');
  const value = request.value ?? 0n;
  const call = { from, to, data, value: toHex(value) };

  const [nonce, estimate, gasPrice, block, tip] = await transport.batch([
    { method: 'eth_getTransactionCount', params: [from, 'pending'] },
    { method: 'eth_estimateGas', params: [call] },
    { method: 'eth_gasPrice', params: [] },
    { method: 'eth_getBlockByNumber', params: ['latest', false] },
    { method: 'eth_maxPriorityFeePerGas', params: [] },
  ]);

  const gas = request.gas ?? withMargin(gasEstimate(estimate!), GAS_LIMIT_MARGIN_PERCENT);
  const base = {
    from,
    to,
    data,
    value: toHex(value),
    nonce: toHex(request.nonce ?? Number(required(nonce!, 'eth_getTransactionCount'))),
    gas: toHex(gas),
  };
  const baseFee = baseFeeOf(block!);
  const use1559 = feeMode === 'eip1559' || (feeMode === 'auto' && baseFee !== undefined && tip!.ok);
  if (!use1559) {
    return {
      ...base,
      gasPrice: toHex(withMargin(required(gasPrice!, 'eth_gasPrice'), GAS_PRICE_MARGIN_PERCENT)),
      chainId: toHex(chainId),
    };
  }
  if (baseFee === undefined) throw validation('this network does not support EIP-1559 fees');
  const priority = required(tip!, 'eth_maxPriorityFeePerGas');
  return {
    ...base,
    chainId: toHex(chainId),
    type: '0x2',
    maxFeePerGas: toHex(baseFee * BASE_FEE_MULTIPLIER + priority),
    maxPriorityFeePerGas: toHex(priority),
  };
}

const withMargin = (value: bigint, percent: bigint) => (value * (100n + percent) + 99n) / 100n;

function gasEstimate(outcome: RpcOutcome): bigint {
  if (outcome.ok) return quantity(outcome.result, 'eth_estimateGas');
  // The node ran the call and it failed: the transaction as asked can never succeed now.
  const reason = outcome.error.message;
  throw validation(
    isRevert(outcome.error)
      ? `transaction would revert: ${reason}`
      : `transaction cannot be executed: ${reason}`,
    { reason },
  );
}

/** A value the node must be able to give; its error means the node is broken, not the request. */
function required(outcome: RpcOutcome, what: string): bigint {
  if (!outcome.ok) throw new AppError('unavailable', `${what} failed: ${outcome.error.message}`);
  return quantity(outcome.result, what);
}

function baseFeeOf(outcome: RpcOutcome): bigint | undefined {
  if (!outcome.ok || typeof outcome.result !== 'object' || outcome.result === null) return undefined;
  const fee = (outcome.result as { baseFeePerGas?: unknown }).baseFeePerGas;
  return typeof fee === 'string' ? quantity(fee, 'baseFeePerGas') : undefined;
}
