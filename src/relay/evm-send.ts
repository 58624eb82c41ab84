import { LockMode } from '@mikro-orm/core';
import { keccak256, type Wallet } from 'ethers';
import type { EvmClient } from '../chains/evm/index.ts';
import { isRevert, RpcError } from '../chains/evm/rpc/errors.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import { isAppError, unavailable } from '../errors.ts';
import { faultPoint } from '../lib/fault.ts';
import { abandon, deadlineReason, markDone, recordSent, retryLater } from './outcomes.ts';
import { RelayRequest, RelayTransaction } from './relay.entity.ts';
import type { Relayer } from './relayer.ts';

/**
 * Sending one relay request on an EVM network (the `relay_request` job; any worker process):
 *
 * 1. Outside any transaction: is the call still wanted (`check`), does it simulate, can the wallet pay
 *    for it, what do fees cost now. A revert goes to the handler (retry later, or abandon).
 * 2. One short transaction under the relayer wallet's row lock: take the next nonce, sign locally,
 *    store the signed bytes, bump the counter.
 * 3. Broadcast those bytes. A crash before or after this step is resumed by broadcasting the same
 *    stored bytes again (this job on retry, or the watcher), never by signing anew.
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

/** The signed transaction of `request` at `nonce` with `fees` (local signing: no I/O). */
export async function signCall(
  wallet: Wallet,
  network: NetworkConfig,
  call: { to: string; data: string; value?: bigint },
  nonce: number,
  gasLimit: bigint,
  fees: Fees,
): Promise<string> {
  return wallet.signTransaction({
    chainId: network.chainId,
    to: call.to,
    data: call.data,
    value: call.value ?? 0n,
    nonce,
    gasLimit,
    ...(fees.priorityFee === undefined
      ? { type: 0, gasPrice: fees.maxFee }
      : { type: 2, maxFeePerGas: fees.maxFee, maxPriorityFeePerGas: fees.priorityFee }),
  });
}

/** The `relay_request` job on an EVM network. */
export async function sendEvm(relayer: Relayer, network: NetworkConfig, id: number): Promise<void> {
  const wallet = relayer.wallet(network);
  if (!wallet) throw new Error(`network ${network.id} has no relayerPrivateKey: nothing can relay there`);
  const client = relayer.deps.clients.evm(network);
  const em = relayer.deps.fork();
  const request = await em.findOne(RelayRequest, { id });
  if (!request || request.status === 'done' || request.status === 'mined') return;
  if (request.nonce !== null && request.nonce !== undefined) {
    // Already signed: broadcast what is stored (a retried job after a crash), nothing new.
    const stored = await em.findOne(
      RelayTransaction,
      { request: id, status: { $in: ['signed', 'sent'] } },
      { orderBy: { id: 'desc' } },
    );
    if (stored) await broadcastStored(relayer, network, client, stored);
    return;
  }
  if (request.status === 'abandoned') return;
  const handler = relayer.handler(request.kind);
  if ((await handler.check(request)) === 'done') return markDone(relayer, id);
  if (request.deadline && Date.now() / 1000 > request.deadline)
    return abandon(relayer, id, deadlineReason(request.lastError));
  const call = { from: wallet.address, to: request.to, data: request.data };
  const sim = await simulate(client, call);
  if (!sim.ok) {
    const decision = await handler.onRevert(request, { data: sim.data, message: sim.message, mined: false });
    return decision.action === 'abandon'
      ? abandon(relayer, id, decision.reason)
      : retryLater(relayer, id, decision.reason);
  }
  const fees = await currentFees(client);
  const gasLimit = (sim.gas * (100n + GAS_MARGIN_PERCENT)) / 100n;
  const balance = await client.getNativeBalance(wallet.address);
  if (balance < gasLimit * fees.maxFee) {
    await relayer.outOfGas(
      network,
      wallet.address,
      `needs ${gasLimit * fees.maxFee} wei for gas, holds ${balance}`,
    );
    return retryLater(relayer, id, 'relayer wallet out of gas');
  }
  await relayer.gasRestored(network, wallet.address);
  const chainNonce = Number(
    BigInt(await client.transport.request<string>('eth_getTransactionCount', [wallet.address, 'pending'])),
  );

  const stored = await em.fork().transactional(async (tx) => {
    await tx.execute(
      `insert into relayer_wallets (network, address, next_nonce, updated_at) values (?, ?, ?, now())
       on conflict (network, address) do nothing`,
      [network.id, wallet.address, chainNonce],
    );
    const [row] = await tx.execute<{ next_nonce: string }[]>(
      'select next_nonce from relayer_wallets where network = ? and address = ? for update',
      [network.id, wallet.address],
    );
    const fresh = await tx.findOne(RelayRequest, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!fresh || fresh.nonce != null || fresh.status !== 'queued') return null;
    // Transactions sent from the wallet outside the service move the chain's count past ours.
    const nonce = Math.max(Number(row!.next_nonce), chainNonce);
    const raw = await signCall(wallet, network, request, nonce, gasLimit, fees);
    const saved = tx.create(RelayTransaction, {
      request: fresh,
      network: network.id,
      wallet: wallet.address,
      nonce,
      kind: 'call',
      hash: keccak256(raw).toLowerCase(),
      raw,
      gasLimit: gasLimit.toString(),
      maxFee: fees.maxFee.toString(),
      priorityFee: fees.priorityFee?.toString() ?? null,
      status: 'signed',
    });
    fresh.nonce = nonce;
    await tx.flush();
    await tx.execute(
      'update relayer_wallets set next_nonce = ?, updated_at = now() where network = ? and address = ?',
      [nonce + 1, network.id, wallet.address],
    );
    return saved;
  });
  faultPoint('relay:after-sign');
  if (stored) await broadcastStored(relayer, network, client, stored);
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
  stored: RelayTransaction,
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
  faultPoint('relay:after-broadcast');
  await recordSent(relayer, requestIdOf(stored), stored.id, stored.hash);
  return true;
}

const requestIdOf = (stored: RelayTransaction) => Number(stored.request.id);
