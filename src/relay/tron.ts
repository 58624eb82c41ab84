import { LockMode } from '@mikro-orm/core';
import { getBytes, SigningKey } from 'ethers';
import type { NetworkConfig } from '../chains/networks.ts';
import { signedFromParts } from '../chains/tron/broadcast.ts';
import { energyPrices, estimateEnergy, feeLimitCap, feeLimitFor } from '../chains/tron/energy.ts';
import { decodeRaw } from '../chains/tron/tx-raw.ts';
import type { EntityManager } from '../db/orm.ts';
import { isAppError } from '../errors.ts';
import { formatUnits } from '../money.ts';
import { kickStale, maybeStale } from './evm-watch.ts';
import { abandon, deadlineReason, markDone, recordSent, retryLater } from './outcomes.ts';
import { RelayRequest, RelayTransaction } from './relay.entity.ts';
import { type Relayer, tuningOf } from './relayer.ts';

/**
 * Relaying on Tron: no nonces and no replacement. A TriggerSmartContract transaction is built by the
 * node, signed locally (the 32-byte id), stored with its expiration and only then broadcast; until it
 * expires the same bytes are re-broadcast. Only once it expired *and* the node confirms by id that it is
 * not on chain may a new one be built. Completion is the router consumer's, on the solidified block.
 */

/** How long a relay transaction stays valid; a new one is built only after this. */
const VALIDITY_MS = 5 * 60_000;
/** Slack after expiration before asking the node whether it is on chain. */
const EXPIRY_SLACK_MS = 10_000;

const split = (raw: string) => {
  const [rawTransaction, signature] = raw.split(':');
  return signedFromParts(rawTransaction!, signature!);
};

/** The `relay_request` job on a Tron network. */
export async function sendTron(relayer: Relayer, network: NetworkConfig, id: number): Promise<void> {
  const wallet = relayer.wallet(network);
  if (!wallet) throw new Error(`network ${network.id} has no relayerPrivateKey: nothing can relay there`);
  const em = relayer.deps.fork();
  const request = await em.findOne(RelayRequest, { id });
  if (!request || request.status === 'done' || request.status === 'mined' || request.status === 'abandoned')
    return;
  const live = await em.findOne(
    RelayTransaction,
    { request: id, status: { $in: ['signed', 'sent'] }, expiration: { $gt: Date.now() } },
    { orderBy: { id: 'desc' } },
  );
  if (live) return void (await broadcastTron(relayer, network, live));
  const handler = relayer.handler(request.kind);
  if ((await handler.check(request)) === 'done') return markDone(relayer, id);
  if (request.deadline && Date.now() / 1000 > request.deadline)
    return abandon(relayer, id, deadlineReason(request.lastError));
  const http = relayer.deps.clients.tronHttp(network);
  const refuse = async (message: string) => {
    const decision = await handler.onRevert(request, { data: null, message, mined: false });
    return decision.action === 'abandon'
      ? abandon(relayer, id, decision.reason)
      : retryLater(relayer, id, decision.reason);
  };
  // The call run read-only first: a revert is decided here, and its energy prices the fee limit.
  let energy: bigint;
  try {
    energy = await estimateEnergy(http, { contract: request.to, data: request.data, caller: wallet.address });
  } catch (error) {
    if (!isAppError(error) || error.code !== 'validation') throw error;
    return refuse(error.message);
  }
  const prices = await energyPrices(http);
  const cap = feeLimitCap(prices, tuningOf(network).feeLimitSun);
  // Each earlier attempt that ran out of energy widens the margin.
  const outOfEnergy = /OUT_OF_ENERGY/.test(request.lastError ?? '') ? request.attempts : 0;
  const feeLimit = feeLimitFor(energy, prices, cap, outOfEnergy);
  if (outOfEnergy > 0 && feeLimit === cap && (await lastFeeLimit(em, id)) >= cap) {
    // It already ran out with all the cap allows: sending it again would only burn the cap again.
    relayer.deps.logger.error('a tron relay ran out of energy at the fee limit cap; it is not sent again', {
      request: id,
      network: network.id,
      cap: cap.toString(),
    });
    return abandon(
      relayer,
      id,
      `out_of_energy: ran out of energy at the fee limit cap of ${formatUnits(cap, 6)} TRX; not sent again`,
    );
  }
  if (feeLimit === undefined) {
    const message = `needs about ${energy} energy (${formatUnits(energy * prices.energyFee, 6)} TRX), above the fee limit cap of ${formatUnits(cap, 6)} TRX`;
    relayer.deps.logger.error('a tron relay costs more than the fee limit cap allows', {
      request: id,
      network: network.id,
      energy: energy.toString(),
      cap: cap.toString(),
    });
    return refuse(message);
  }
  const built = await relayer.deps.clients.tronClient(network).buildTrigger({
    owner: wallet.address,
    contract: request.to,
    data: request.data,
    feeLimit: Number(feeLimit),
    validityMs: VALIDITY_MS,
  });
  const signature = new SigningKey(wallet.privateKey).sign(`0x${built.tx_id}`).serialized;
  const stored = await em.fork().transactional(async (tx) => {
    const fresh = await tx.findOne(RelayRequest, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (fresh?.status !== 'queued') return null;
    const other = await tx.count(RelayTransaction, {
      request: id,
      status: { $in: ['signed', 'sent'] },
      expiration: { $gt: Date.now() },
    });
    if (other > 0) return null;
    const row = tx.create(RelayTransaction, {
      request: fresh,
      network: network.id,
      wallet: wallet.address,
      nonce: null,
      kind: 'call',
      hash: `0x${built.tx_id}`,
      raw: `${built.raw_transaction}:${signature.slice(2)}`,
      expiration: built.expiration,
      status: 'signed',
    });
    await tx.flush();
    return row;
  });
  if (stored) await broadcastTron(relayer, network, stored);
}

/** The fee limit (sun) of the request's latest transaction; 0 when it has none. */
async function lastFeeLimit(em: EntityManager, request: number): Promise<bigint> {
  const last = await em.findOne(RelayTransaction, { request }, { orderBy: { id: 'desc' } });
  if (!last) return 0n;
  const [rawHex] = last.raw.split(':');
  return BigInt(decodeRaw(getBytes(`0x${rawHex}`)).feeLimit);
}

async function broadcastTron(
  relayer: Relayer,
  network: NetworkConfig,
  stored: RelayTransaction,
): Promise<void> {
  try {
    await relayer.deps.clients.tronClient(network).broadcast(split(stored.raw));
  } catch (error) {
    if (!isAppError(error) || error.code !== 'validation') throw error;
    if (/balance|BANDWITH|bandwidth|energy|not enough|insufficient/i.test(error.message))
      await relayer.outOfGas(network, stored.wallet, error.message);
    await relayer.deps
      .fork()
      .execute('update relay_requests set last_error = ?, updated_at = now() where id = ?', [
        error.message.slice(0, 500),
        Number(stored.request.id),
      ]);
    return;
  }
  await relayer.gasRestored(network, stored.wallet);
  await recordSent(relayer, Number(stored.request.id), stored.id, stored.hash);
}

/** After each tick: mined relays settle, expired ones not on chain are dropped and rebuilt. */
export async function watchTron(relayer: Relayer, network: NetworkConfig): Promise<void> {
  const em = relayer.deps.fork();
  const tron = relayer.deps.clients.tronClient(network);
  const requests = await em.find(
    RelayRequest,
    { network: network.id, status: { $in: ['queued', 'submitted', 'mined'] } },
    { limit: 500 },
  );
  if (maybeStale(requests, 500)) await kickStale(relayer, network);
  for (const request of requests) {
    const last = await em.findOne(
      RelayTransaction,
      { request: request.id, status: { $ne: 'dropped' } },
      { orderBy: { id: 'desc' } },
    );
    if (!last) continue;
    const state = await tron.getTxState(last.hash);
    const handler = relayer.handler(request.kind);
    if (state.status === 'confirmed' || state.status === 'failed') {
      if (last.status !== 'mined') {
        await relayer.deps.fork().transactional(async (tx) => {
          await tx.nativeUpdate(
            RelayTransaction,
            { id: last.id },
            { status: 'mined', minedBlock: state.blockNumber ?? null },
          );
          const row = await tx.findOneOrFail(RelayRequest, { id: request.id });
          const changed = row.txHash !== last.hash;
          row.status = 'mined';
          row.txHash = last.hash;
          await tx.flush();
          if (changed) await handler.onBroadcast(tx, row, last.hash);
        });
        if (state.status === 'failed') {
          if (state.result === 'OUT_OF_ENERGY')
            relayer.deps.logger.error('a tron relay ran out of energy; its fee limit was burned', {
              request: request.id,
              network: network.id,
              tx: last.hash,
              next: 'estimating again with a wider margin',
            });
          const decision = await handler.onRevert(request, {
            data: null,
            message: `reverted on chain (${state.result ?? 'FAILED'})`,
            mined: true,
          });
          if (decision.action === 'abandon') await abandon(relayer, request.id, decision.reason);
          else await requeue(relayer, request.id, decision.reason, true);
          continue;
        }
      }
      if (state.status === 'confirmed' && (await handler.check(request)) === 'done')
        await markDone(relayer, request.id);
      continue;
    }
    if (state.status === 'pending') continue;
    // Unknown to the node: re-broadcast while valid; once expired and confirmed absent, start again.
    if (Date.now() < Number(last.expiration ?? 0) + EXPIRY_SLACK_MS) {
      await broadcastTron(relayer, network, last);
      continue;
    }
    if ((await tron.getTransaction(last.hash)) !== null) continue;
    await relayer.deps.fork().nativeUpdate(RelayTransaction, { id: last.id }, { status: 'dropped' });
    await requeue(relayer, request.id, 'the relay transaction expired unconfirmed; building a new one');
  }
}

async function requeue(relayer: Relayer, id: number, reason: string, decided = false): Promise<void> {
  await relayer.deps.fork().transactional(async (tx) => {
    const row = await tx.findOneOrFail(RelayRequest, { id });
    row.status = 'queued';
    row.attempts += 1;
    row.lastError = reason;
    await tx.flush();
    if (decided) await relayer.handler(row.kind).onRetry?.(tx, row, reason);
    await relayer.later(tx, row);
  });
}
