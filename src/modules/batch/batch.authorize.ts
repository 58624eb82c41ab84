import { LockMode } from '@mikro-orm/core';
import { Interface } from 'ethers';
import { abi } from '../../chains/contracts.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, unavailable } from '../../errors.ts';
import { requestRelay } from '../../relay/request.ts';
import { Payout } from '../payout/payout.entity.ts';
import { checkOrderSignature } from '../payout/payout.signature.ts';
import { payoutSnapshot, transitionPayouts } from '../payout/payout.transition.ts';
import { PayoutBatch } from './batch.entity.ts';
import type { AuthorizeBatchRequest } from './batch.schemas.ts';
import { type BatchService, type BatchView, batchTypedData } from './batch.service.ts';

export const BATCH_ROUTER = new Interface(abi('BatchPayoutRouter'));

/** Attempts when another request changes the batch between reading and writing it. */
const ATTEMPTS = 3;

/** The relay request of a batch's `n`-th submission (the router pays only still-unpaid items each time). */
export const submissionSubject = (batchId: string, n: number) => `${batchId}#${n}`;

/** Calldata of `executeBatch(batch, signature)`. */
export function executeBatchCalldata(
  batch: PayoutBatch,
  items: readonly Payout[],
  signature: string,
): string {
  const m = batchTypedData(batch, items).message;
  return BATCH_ROUTER.encodeFunctionData('executeBatch', [
    [m.token, m.merchant, m.items.map((i) => [i.recipient, i.amount]), m.nonce, m.deadline],
    signature,
  ]);
}

/**
 * Authorizes a batch (section 4.18, D7, D14): the signature must recover to the payout wallet; every
 * item becomes `authorized` and the first submission is queued in one transaction. The same signature
 * again answers the batch unchanged; another valid signature is 409; past the deadline 410 (the
 * chain follower settles the items `failed`/`expired` once the deadline is past at a final block).
 */
export async function authorizeBatch(
  service: BatchService,
  em: EntityManager,
  merchantId: string,
  input: AuthorizeBatchRequest,
): Promise<BatchView> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const view = await service.get(em.fork(), merchantId, input.batch);
    const { batch, items } = view;
    const signature = await checkOrderSignature(
      service.chains,
      em,
      { merchantId, network: batch.network, payer: batch.payer, typedData: batchTypedData(batch, items) },
      input.signature,
    );
    if (batch.signature) {
      if (batch.signature === signature) return view;
      throw new AppError('conflict', 'the batch is already authorized with a different signature');
    }
    const now = service.clock();
    const pending = items.filter((i) => i.status === 'pending');
    if (Math.floor(now.getTime() / 1000) > batch.deadline || pending.length < items.length) {
      // Refused, not settled: the follower settles the items `expired` on final chain evidence.
      throw new AppError(
        'expired',
        'the batch’s 30-minute deadline passed before it was authorized; create a new batch with a fresh external_id',
      );
    }
    const applied = await em
      .transactional(async (tx) => {
        const claimed = await tx.nativeUpdate(
          PayoutBatch,
          { id: batch.id, signature: null },
          { signature, authorizedAt: now, submissions: 1 },
        );
        if (claimed === 0) return false;
        const moved = await transitionPayouts(
          tx,
          items.map((i) => ({
            kind: 'authorized' as const,
            payout: payoutSnapshot(i),
            set: { status: 'authorized' as const, signature, authorizedAt: now },
          })),
          'report',
        );
        // An item changed meanwhile: the whole batch is read again by the next attempt.
        if (moved.stale.length > 0) throw new Stale();
        await requestRelay(tx, {
          kind: 'batch',
          subjectId: submissionSubject(batch.id, 1),
          network: batch.network,
          to: batch.router,
          data: executeBatchCalldata(batch, items, signature),
          deadline: batch.deadline,
        });
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof Stale) return false;
        throw error;
      });
    if (applied) return service.get(em.fork(), merchantId, batch.id);
  }
  throw unavailable('the batch is changing too fast; retry shortly');
}

/** An item changed between reading and writing: the whole authorization rolls back and is retried. */
class Stale extends Error {}

/**
 * Queues submission `n` of an authorized batch (the router pays only items still unpaid), unless it
 * was queued already, every item is paid or settled, or the deadline passed. Idempotent.
 */
export async function resubmitBatch(em: EntityManager, batchId: string, n: number): Promise<boolean> {
  return em.transactional(async (tx) => {
    const batch = await tx.findOne(PayoutBatch, { id: batchId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!batch?.signature || batch.submissions >= n) return false;
    if (Math.floor(Date.now() / 1000) > batch.deadline) return false;
    const items = await tx.find(Payout, { batchId }, { orderBy: { batchIndex: 'asc' } });
    const open = items.filter(
      (i) => i.executedBlock == null && (i.status === 'authorized' || i.status === 'submitted'),
    );
    if (open.length === 0) return false;
    batch.submissions = n;
    await tx.flush();
    await requestRelay(tx, {
      kind: 'batch',
      subjectId: submissionSubject(batch.id, n),
      network: batch.network,
      to: batch.router,
      data: executeBatchCalldata(batch, items, batch.signature),
      deadline: batch.deadline,
    });
    return true;
  });
}
