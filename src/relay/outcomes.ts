import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '../db/orm.ts';
import { RelayRequest, RelayTransaction } from './relay.entity.ts';
import type { Relayer } from './relayer.ts';

/**
 * The state changes of a relay request, each one short database transaction that also tells the
 * request's handler (whose own change commits with it). Every function re-reads the request under a
 * row lock, so a job and the watcher acting on the same request at once serialise.
 */

async function locked(tx: EntityManager, id: number): Promise<RelayRequest | null> {
  return tx.findOne(RelayRequest, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/** The handler needs nothing more: the request is done (its nonce, if any, was consumed on chain). */
export async function markDone(relayer: Relayer, id: number): Promise<void> {
  await relayer.deps.fork().transactional(async (tx) => {
    const request = await locked(tx, id);
    if (!request || request.status === 'done') return;
    request.status = 'done';
    await tx.flush();
  });
}

/**
 * Gives the request up with `reason` and tells its handler. A request still holding an unmined nonce
 * keeps it: the watcher fills it with a cheap self-transfer so later nonces do not wait behind a gap.
 */
export async function abandon(relayer: Relayer, id: number, reason: string): Promise<void> {
  await relayer.deps.fork().transactional(async (tx) => {
    const request = await locked(tx, id);
    if (!request || request.status === 'done' || request.status === 'abandoned') return;
    request.status = 'abandoned';
    request.lastError = reason;
    await tx.flush();
    await relayer.handler(request.kind).onAbandon(tx, request, reason);
  });
  relayer.deps.logger.info('relay abandoned', { request: id, reason: reason.slice(0, 300) });
}

/**
 * Why a request is given up at its deadline: its last refusal first (what the owner settles on, e.g.
 * a payout's `insufficient_allowance`), never a bare "expired" that would hide it.
 */
export const deadlineReason = (lastError: string | null | undefined): string =>
  lastError
    ? `${lastError} (given up: the deadline passed)`
    : 'expired: the deadline passed before it could be relayed';

/** Not now: note why (the handler too) and run the request's job again after a backoff. */
export async function retryLater(
  relayer: Relayer,
  id: number,
  reason: string,
  delayMs?: number,
): Promise<void> {
  await relayer.deps.fork().transactional(async (tx) => {
    const request = await locked(tx, id);
    if (!request || request.status === 'done' || request.status === 'abandoned') return;
    request.attempts += 1;
    request.lastError = reason;
    await tx.flush();
    await relayer.handler(request.kind).onRetry?.(tx, request, reason);
    await relayer.later(tx, request, delayMs);
  });
}

/**
 * A stored transaction reached the network: the request is `submitted` with its hash, and the
 * handler hears of it (a payout moves to `submitted`). Fillers of abandoned requests tell nobody.
 */
export async function recordSent(relayer: Relayer, id: number, txId: number, hash: string): Promise<void> {
  await recordSentMany(relayer, [{ id, txId, hash }]);
}

/**
 * {@link recordSent} of many transactions in one database transaction: one update of the
 * transactions, one locked read of their requests (in id order), one set-based change per handler.
 */
export async function recordSentMany(
  relayer: Relayer,
  sent: readonly { id: number; txId: number; hash: string }[],
): Promise<void> {
  if (sent.length === 0) return;
  await relayer.deps.fork().transactional(async (tx) => {
    const txIds = sent.map((s) => s.txId);
    await tx.nativeUpdate(
      RelayTransaction,
      { id: { $in: txIds }, status: 'signed' },
      { status: 'sent', sentAt: new Date() },
    );
    const requests = await tx.find(
      RelayRequest,
      { id: { $in: sent.map((s) => s.id) } },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
    );
    const txs = new Map(
      (await tx.find(RelayTransaction, { id: { $in: txIds } })).map((t) => [Number(t.id), t]),
    );
    const changed: { request: RelayRequest; txHash: string }[] = [];
    for (const request of requests) {
      const s = sent.find((x) => x.id === Number(request.id))!;
      if (request.status === 'done' || request.status === 'abandoned' || request.status === 'mined') continue;
      // A broadcast that finished late, after the watcher gave its nonce up (taken by another
      // transaction), is history: it must not put the re-queued request back to `submitted`.
      const t = txs.get(s.txId);
      if (t?.status !== 'sent' || (t.nonce != null && Number(t.nonce) !== Number(request.nonce))) continue;
      if (request.txHash !== s.hash) changed.push({ request, txHash: s.hash });
      request.status = 'submitted';
      request.txHash = s.hash;
    }
    await tx.flush();
    await relayer.onBroadcastMany(tx, changed);
  });
}

/** {@link markDone} of many requests in one statement. */
export async function markDoneMany(relayer: Relayer, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await relayer.deps
    .fork()
    .nativeUpdate(RelayRequest, { id: { $in: [...ids] }, status: { $ne: 'done' } }, { status: 'done' });
}
