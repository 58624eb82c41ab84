import { type Pass, untilApplied } from '../../db/fresh-reads.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import type { RelayRequest } from '../../relay/relay.entity.ts';
import type { RelayHandler } from '../../relay/types.ts';
import { Payout } from '../payout/payout.entity.ts';
import { payoutReads } from '../payout/payout.reads.ts';
import { noteChange, noteOf, RETRYABLE, revertReason } from '../payout/payout.revert.ts';
import { applyChanges } from '../payout/payout.settle.ts';
import { payoutSnapshot } from '../payout/payout.transition.ts';

/**
 * Batch submissions as the transaction submitter sees them (src/relay/types.ts). Each submission of a
 * signed batch is its own relay request (`pb_…#n`); the router pays only items still unpaid, so a
 * submission is wanted while any item is open. Items are never failed from here (payout.expire.ts
 * settles them once the deadline is final on chain).
 */

/** The batch a submission's subject names (`pb_…#n`). */
const batchOf = (request: RelayRequest) => request.subjectId.split('#')[0]!;

const open = (items: readonly Payout[]) =>
  items.filter((i) => i.executedBlock == null && (i.status === 'authorized' || i.status === 'submitted'));

export function batchRelayHandler(deps: { fork: () => EntityManager; logger: Logger }): RelayHandler {
  const items = (em: EntityManager, request: RelayRequest, pass?: Pass) =>
    em.find(
      Payout,
      { batchId: batchOf(request) },
      { orderBy: { batchIndex: 'asc' }, ...(pass ? payoutReads(pass) : {}) },
    );

  async function note(tx: EntityManager, request: RelayRequest, reason: string, label: string) {
    await untilApplied(label, async (pass) =>
      applyChanges(
        tx,
        open(await items(tx, request, pass)).flatMap((i) => {
          const set = noteChange(i, reason);
          return set ? [{ kind: 'noted' as const, payout: payoutSnapshot(i), set }] : [];
        }),
      ),
    );
  }

  return {
    async check(request) {
      return open(await items(deps.fork(), request)).length > 0 ? 'send' : 'done';
    },

    async onRevert(request, revert) {
      // executeBatch reverts only as a whole: expired, empty, or wrongly signed; per-item refusals are events.
      const reason = revertReason(revert.data, revert.message);
      deps.logger.info('batch relay reverts', { subject: request.subjectId, reason, mined: revert.mined });
      return RETRYABLE.has(reason)
        ? { action: 'retry', reason: noteOf(reason, revert.message) }
        : { action: 'abandon', reason: noteOf(reason, revert.message) };
    },

    // Both decide again from a fresh read when an item changed meanwhile (the follower recording its
    // execution): the item may no longer be open, and then there is nothing to record.
    async onBroadcast(tx, request, txHash) {
      await untilApplied('batch broadcast', async (pass) => {
        const waiting = open(await items(tx, request, pass)).filter((i) => i.txHash !== txHash);
        return applyChanges(
          tx,
          waiting.map((i) => ({
            kind: 'submitted' as const,
            payout: payoutSnapshot(i),
            set: { status: 'submitted' as const, txHash },
          })),
        );
      });
    },

    // Why the submission is not through yet (retried) or given up, on every item still open: visible
    // per item in `/v1/payouts/status` and GraphQL, and kept as the items' concrete failure reason.
    onRetry: (tx, request, reason) => note(tx, request, reason, 'batch relay retries'),
    onAbandon: (tx, request, reason) => note(tx, request, reason, 'batch relay abandoned'),
  };
}
