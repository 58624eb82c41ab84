import { type Pass, untilApplied } from '../../db/fresh-reads.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import type { RelayRequest } from '../../relay/relay.entity.ts';
import type { RelayHandler } from '../../relay/types.ts';
import type { PayoutChains } from './payout.chain.ts';
import { Payout } from './payout.entity.ts';
import { payoutReads } from './payout.reads.ts';
import { noteChange, noteOf, RETRYABLE, revertReason } from './payout.revert.ts';
import { applyChanges } from './payout.settle.ts';
import { payoutSnapshot } from './payout.transition.ts';

/** What {@link RelayHandler.checkMany} reads of each payout. */
type CheckedPayout = Pick<Payout, 'id' | 'status' | 'network' | 'router' | 'payer' | 'nonce'>;

/**
 * Single payouts as the transaction submitter sees them (src/relay/types.ts). The submitter gets the
 * call on chain; this says whether it is still wanted (never a second execution: the router's
 * `nonceUsed` is read before every send) and records what happened on the payout. A payout is never
 * failed from here: what cannot be relayed is noted, and the chain follower settles it `failed` once
 * its deadline is final on chain with the order unexecuted (payout.settle.ts).
 */
export function payoutRelayHandler(deps: {
  chains: PayoutChains;
  fork: () => EntityManager;
  logger: Logger;
}): RelayHandler {
  const load = (em: EntityManager, request: RelayRequest, pass?: Pass) =>
    em.findOne(Payout, { id: request.subjectId }, pass ? payoutReads(pass) : {});

  return {
    async check(request) {
      const payout = await load(deps.fork(), request);
      if (!payout || payout.status === 'completed' || payout.status === 'failed') return 'done';
      // Not `executedBlock`: a recorded execution can still leave the chain. The router's state is the truth.
      const network = deps.chains.network(payout.network);
      const used = await deps.chains.nonceUsed(network, payout.router, payout.payer, BigInt(payout.nonce));
      return used ? 'done' : 'send';
    },

    // One read of the payouts, one batch of `nonceUsed` per network: a pipelined send checks its whole
    // queue before sending, and the watcher its mined relays before finishing them.
    async checkMany(requests) {
      // The few columns the check needs, not whole entities: a send checks up to 200 at once.
      const payouts = await deps
        .fork()
        .execute<CheckedPayout[]>(
          'select id, status, network, router, payer, nonce from payouts where id = any(?::text[])',
          [`{${requests.map((r) => r.subjectId).join(',')}}`],
        );
      const byId = new Map(payouts.map((p) => [p.id, p]));
      const open = payouts.filter((p) => p.status !== 'completed' && p.status !== 'failed');
      const used = new Map<string, boolean>();
      for (const networkId of new Set(open.map((p) => p.network))) {
        const mine = open.filter((p) => p.network === networkId);
        const answers = await deps.chains.nonceUsedMany(
          deps.chains.network(networkId),
          mine.map((p) => ({ router: p.router, signer: p.payer, nonce: BigInt(p.nonce) })),
        );
        for (const [i, p] of mine.entries()) used.set(p.id, answers[i]!);
      }
      return requests.map((r) => {
        const payout = byId.get(r.subjectId);
        if (!payout || payout.status === 'completed' || payout.status === 'failed') return 'done';
        return used.get(payout.id) ? 'done' : 'send';
      });
    },

    async onRevert(request, revert) {
      const reason = revertReason(revert.data, revert.message);
      deps.logger.info('payout relay reverts', {
        payout: request.subjectId,
        reason,
        mined: revert.mined,
        message: revert.message.slice(0, 300),
      });
      return RETRYABLE.has(reason)
        ? { action: 'retry', reason: noteOf(reason, revert.message) }
        : { action: 'abandon', reason: noteOf(reason, revert.message) };
    },

    // Both decide again from a fresh read when the payout changed meanwhile (the follower recording
    // its execution): it may then have nothing left to record.
    async onBroadcast(tx, request, txHash) {
      await untilApplied('payout broadcast', async (pass) => {
        const payout = await load(tx, request, pass);
        if (!payout || payout.executedBlock != null || payout.txHash === txHash) return [];
        if (payout.status !== 'authorized' && payout.status !== 'submitted') return [];
        return applyChanges(tx, [
          { kind: 'submitted', payout: payoutSnapshot(payout), set: { status: 'submitted', txHash } },
        ]);
      });
    },

    async onBroadcastMany(tx, sent) {
      const hashOf = new Map(sent.map((s) => [s.request.subjectId, s.txHash]));
      await untilApplied('payout broadcasts', async (pass) => {
        const payouts = await tx.find(Payout, { id: { $in: [...hashOf.keys()] } }, payoutReads(pass));
        return applyChanges(
          tx,
          payouts
            .filter(
              (p) =>
                p.executedBlock == null &&
                p.txHash !== hashOf.get(p.id) &&
                (p.status === 'authorized' || p.status === 'submitted'),
            )
            .map((p) => ({
              kind: 'submitted' as const,
              payout: payoutSnapshot(p),
              set: { status: 'submitted' as const, txHash: hashOf.get(p.id)! },
            })),
        );
      });
    },

    onRetry: (tx, request, reason) => note(tx, request, reason, 'payout relay retries'),
    onAbandon: (tx, request, reason) => note(tx, request, reason, 'payout relay abandoned'),
  };

  /**
   * Writes why the relay waits (or stopped) on the payout as it happens, and keeps the last concrete
   * refusal apart: a later note without one (the wallet out of gas, the deadline passing) never
   * replaces it, so the payout fails with what actually kept it from executing.
   */
  async function note(tx: EntityManager, request: RelayRequest, reason: string, label: string) {
    await untilApplied(label, async (pass) => {
      const payout = await load(tx, request, pass);
      if (!payout || (payout.status !== 'authorized' && payout.status !== 'submitted')) return [];
      const set = noteChange(payout, reason);
      return set ? applyChanges(tx, [{ kind: 'noted', payout: payoutSnapshot(payout), set }]) : [];
    });
  }
}
