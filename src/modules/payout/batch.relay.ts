import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import type { RelayRequest } from '../../relay/relay.entity.ts';
import type { RelayHandler } from '../../relay/types.ts';
import { Payout } from './payout.entity.ts';
import { noteOf, RETRYABLE, revertReason } from './payout.revert.ts';
import { payoutSnapshot, transitionPayouts } from './payout.transition.ts';

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
  const items = (em: EntityManager, request: RelayRequest) =>
    em.find(Payout, { batchId: batchOf(request) }, { orderBy: { batchIndex: 'asc' } });

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

    async onBroadcast(tx, request, txHash) {
      const waiting = open(await items(tx, request)).filter((i) => i.txHash !== txHash);
      await transitionPayouts(
        tx,
        waiting.map((i) => ({
          kind: 'submitted' as const,
          payout: payoutSnapshot(i),
          set: { status: 'submitted' as const, txHash },
        })),
      );
    },

    async onAbandon(tx, request, reason) {
      await transitionPayouts(
        tx,
        open(await items(tx, request))
          .filter((i) => !i.relayNote)
          .map((i) => ({ kind: 'noted' as const, payout: payoutSnapshot(i), set: { relayNote: reason } })),
      );
    },
  };
}
