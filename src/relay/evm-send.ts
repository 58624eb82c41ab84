import type { Wallet } from 'ethers';
import type { EvmClient } from '../chains/evm/index.ts';
import { isRevert, RpcError } from '../chains/evm/rpc/errors.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import { isAppError, unavailable } from '../errors.ts';
import { faultPoint } from '../lib/fault.ts';
import { keyBytes, signEvmTx } from './evm-sign.ts';
import { recordSent } from './outcomes.ts';
import type { Relayer } from './relayer.ts';

/**
 * The pieces of sending relay transactions on an EVM network: fees of now, simulation, local signing,
 * broadcasting stored bytes. The `relay_request` job itself (pipelined: many requests of a wallet
 * checked, signed in nonce order and broadcast at once) is evm-pipeline.ts; the watcher evm-watch.ts.
 * A crash after signing is resumed by broadcasting the same stored bytes again, never by signing anew.
 */

/** Added to the gas estimate: the state may move between simulation and inclusion. */
export const GAS_MARGIN_PERCENT = 25n;

export interface Fees {
  /** Legacy gas price, or EIP-1559 max fee per gas. */
  maxFee: bigint;
  /** EIP-1559 tip; undefined: a legacy transaction. */
  priorityFee?: bigint;
}

/** What fees cost now: EIP-1559 where the chain has a base fee, legacy gas price otherwise. */
export async function currentFees(client: EvmClient): Promise<Fees> {
  const [block, gasPrice, tip] = await client.transport.batch([
    { method: 'eth_getBlockByNumber', params: ['latest', false] },
    { method: 'eth_gasPrice', params: [] },
    { method: 'eth_maxPriorityFeePerGas', params: [] },
  ]);
  const baseFee =
    block?.ok &&
    block.result &&
    typeof (block.result as { baseFeePerGas?: unknown }).baseFeePerGas === 'string'
      ? BigInt((block.result as { baseFeePerGas: string }).baseFeePerGas)
      : undefined;
  if (baseFee !== undefined && tip?.ok) {
    const priorityFee = BigInt(tip.result as string);
    return { maxFee: baseFee * 2n + priorityFee, priorityFee };
  }
  if (!gasPrice?.ok) throw unavailable(`network ${client.networkId}: eth_gasPrice failed`);
  return { maxFee: (BigInt(gasPrice.result as string) * 120n) / 100n };
}

/** A simulation: the gas it needs, or the revert (data and message), or the node failed (throws). */
export async function simulate(
  client: EvmClient,
  call: { from: string; to: string; data: string },
  blockTag: string | number = 'latest',
): Promise<{ ok: true; gas: bigint } | { ok: false; data: string | null; message: string }> {
  try {
    const tag = typeof blockTag === 'number' ? `0x${blockTag.toString(16)}` : blockTag;
    if (tag !== 'latest') {
      await client.transport.request('eth_call', [call, tag]);
      return { ok: true, gas: 0n };
    }
    const gas = await client.transport.request<string>('eth_estimateGas', [call]);
    return { ok: true, gas: BigInt(gas) };
  } catch (error) {
    if (error instanceof RpcError && isRevert(error)) {
      const data = typeof error.data === 'string' && /^0x[0-9a-fA-F]*$/.test(error.data) ? error.data : null;
      return { ok: false, data, message: error.message };
    }
    throw unavailable(`network ${client.networkId}: simulation failed: ${(error as Error).message}`, error);
  }
}

/** What {@link simulate} answers. */
export type Simulation = { ok: true; gas: bigint } | { ok: false; data: string | null; message: string };

/** {@link simulate} of many calls at the head in one JSON-RPC batch, in their order. */
export async function simulateMany(
  client: EvmClient,
  calls: readonly { from: string; to: string; data: string }[],
): Promise<Simulation[]> {
  if (calls.length === 0) return [];
  const answers = await client.transport.batch(
    calls.map((c) => ({ method: 'eth_estimateGas', params: [c] })),
  );
  return answers.map((a) => {
    if (a.ok) return { ok: true, gas: BigInt(a.result as string) };
    if (!isRevert(a.error))
      throw unavailable(`network ${client.networkId}: simulation failed: ${a.error.message}`, a.error);
    const data =
      typeof a.error.data === 'string' && /^0x[0-9a-fA-F]*$/.test(a.error.data) ? a.error.data : null;
    return { ok: false, data, message: a.error.message };
  });
}

/**
 * The signed transaction of `request` at `nonce` with `fees` (local signing: no I/O). The bytes are
 * ethers' `wallet.signTransaction` of the same fields, computed without its generic path (evm-sign.ts).
 */
export async function signCall(
  wallet: Wallet,
  network: NetworkConfig,
  call: { to: string; data: string; value?: bigint },
  nonce: number,
  gasLimit: bigint,
  fees: Fees,
): Promise<string> {
  let key = keys.get(wallet);
  if (!key) {
    key = keyBytes(wallet.privateKey);
    keys.set(wallet, key);
  }
  return signEvmTx(key, {
    chainId: network.chainId,
    nonce,
    to: call.to,
    data: call.data,
    value: call.value ?? 0n,
    gasLimit,
    maxFee: fees.maxFee,
    ...(fees.priorityFee === undefined ? {} : { priorityFee: fees.priorityFee }),
  });
}

/** Each relayer wallet's key as bytes, converted once. */
const keys = new WeakMap<Wallet, Uint8Array>();

/** What broadcasting a stored transaction needs of its row (a `RelayTransaction`, or the few columns a send wrote). */
export interface StoredTx {
  id: number;
  request: { id: number };
  wallet: string;
  nonce?: number | null;
  hash: string;
  raw: string;
}

/**
 * Broadcasts stored bytes. A refusal is not an error of the job: out of gas is an episode (the
 * watcher re-broadcasts once funded), a nonce already used is the watcher's to reconcile, anything
 * else (underpriced) is replaced by the watcher.
 */
export async function broadcastStored(
  relayer: Relayer,
  network: NetworkConfig,
  client: EvmClient,
  stored: StoredTx,
): Promise<boolean> {
  if (!(await broadcastOnly(relayer, network, client, stored))) return false;
  faultPoint('relay:after-broadcast');
  await recordSent(relayer, requestIdOf(stored), stored.id, stored.hash);
  return true;
}

/** {@link broadcastStored} without recording the send (the caller records many at once); true if the node took it. */
export async function broadcastOnly(
  relayer: Relayer,
  network: NetworkConfig,
  client: EvmClient,
  stored: StoredTx,
): Promise<boolean> {
  try {
    await client.broadcast(stored.raw);
  } catch (error) {
    if (!isAppError(error) || error.code !== 'validation') throw error;
    const message = error.message;
    if (/insufficient funds/i.test(message)) await relayer.outOfGas(network, stored.wallet, message);
    await relayer.deps
      .fork()
      .execute('update relay_requests set last_error = ?, updated_at = now() where id = ?', [
        message.slice(0, 500),
        requestIdOf(stored),
      ]);
    return false;
  }
  return true;
}

const requestIdOf = (stored: StoredTx) => Number(stored.request.id);
