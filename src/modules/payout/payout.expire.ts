import type { NetworkConfig } from '../../chains/networks.ts';
import type { TickContext } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PayoutChains } from './payout.chain.ts';
import { type FailureReason, Payout } from './payout.entity.ts';
import { noteReason } from './payout.revert.ts';
import { payoutSnapshot, transitionPayouts } from './payout.transition.ts';

/**
 * Payouts that can no longer be paid settle `failed` (D7, D14), after each follower tick:
 * - `pending` past its deadline (never authorized, so never relayed): `expired`;
 * - `authorized`/`submitted` whose deadline is before the timestamp of a final block while the order
 *   was never executed: the router refuses it from then on, so nothing can move any more. The reason
 *   is `nonce_used` when the router shows the nonce used by another order, else the last reason the
 *   relay gave (allowance, funds, transfer refused…), else `expired`.
 * Failing only on a final block is what makes `payout.failed` safe to act on: a merchant who pays
 * again on it never pays twice.
 */

/** Payouts settled per tick and kind; the rest wait for the next tick. */
const BATCH = 200;

export interface ExpireDeps {
  chains: PayoutChains;
  logger: Logger;
  now?: () => Date;
}

export async function expirePayouts(
  deps: ExpireDeps,
  network: NetworkConfig,
  ctx: TickContext,
): Promise<void> {
  const now = deps.now?.() ?? new Date();
  await ctx.transaction(async (tx) => {
    const unsigned = await tx.find(
      Payout,
      { network: network.id, status: 'pending', deadline: { $lt: Math.floor(now.getTime() / 1000) } },
      { limit: BATCH },
    );
    await transitionPayouts(
      tx,
      unsigned.map((p) => ({
        kind: 'failed' as const,
        payout: payoutSnapshot(p),
        set: { status: 'failed' as const, failureReason: 'expired' as const, settledAt: now },
      })),
    );
  });

  const finalTime = await finalTimestamp(deps, network, ctx);
  if (finalTime === undefined) return;
  const stranded = await ctx.transaction((tx) =>
    tx.find(
      Payout,
      {
        network: network.id,
        status: { $in: ['authorized', 'submitted'] },
        executedBlock: null,
        deadline: { $lt: finalTime },
      },
      { limit: BATCH },
    ),
  );
  for (const payout of stranded) {
    // Chain I/O outside the transaction; what it learns can only get more true (a used nonce stays used).
    const used = payout.batchId
      ? await deps.chains.itemPaid(
          network,
          payout.router,
          payout.payer,
          BigInt(payout.nonce),
          payout.orderIndex,
        )
      : await deps.chains.nonceUsed(network, payout.router, payout.payer, BigInt(payout.nonce));
    if (used && payout.batchId) {
      // Paid on chain but never seen by the follower (before its first block): not ours to fail.
      deps.logger.warn('batch item paid on chain outside the followed range', { payout: payout.id });
      continue;
    }
    const note = await ctx.transaction(async (tx) => {
      const [row] = await tx.execute<{ last_error: string | null }[]>(
        `select last_error from relay_requests where subject_id = ? or subject_id like ?
          order by id desc limit 1`,
        [payout.id, `${payout.batchId ?? payout.id}#%`],
      );
      return row?.last_error ?? null;
    });
    const reason: FailureReason = used
      ? 'nonce_used'
      : (noteReason(payout.relayNote) ?? noteReason(note) ?? 'expired');
    deps.logger.info('payout can no longer be paid', { payout: payout.id, reason });
    await ctx.transaction((tx) =>
      transitionPayouts(tx, [
        {
          kind: 'failed',
          payout: payoutSnapshot(payout),
          set: { status: 'failed', failureReason: reason, settledAt: new Date() },
        },
      ]),
    );
  }
}

/** The chain time of the newest final block (Tron: the solidified head), or undefined when unreadable. */
async function finalTimestamp(
  deps: ExpireDeps,
  network: NetworkConfig,
  ctx: TickContext,
): Promise<number | undefined> {
  if (network.kind === 'tron' || ctx.finalized >= ctx.head.number) return ctx.head.timestamp;
  if (ctx.finalized < 0) return undefined;
  return deps.chains.blockTimestamp(network, ctx.finalized);
}
