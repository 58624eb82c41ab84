import type { TxReceipt } from '../../chains/evm/index.ts';
import { mapLimit } from '../../chains/evm/util.ts';
import { confirmationsFor } from '../../chains/networks.ts';
import type { BlockHeader } from '../../chains/types.ts';
import type { Config } from '../../config.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { TickContext } from '../../followers/types.ts';
import type { SessionChains, SessionNetwork } from './session.chain.ts';
import { type FollowedSession, SNAPSHOT_COLUMNS, type SnapshotRow, snapshotOf } from './session.snapshot.ts';
import { type SessionChange, transitionSessions } from './session.transition.ts';

/**
 * The session work of a follower tick that needs the chain or the clock, run after the tick's block
 * transactions (never inside one): reported transactions that reverted, were never mined (by the
 * router deadline) or mined without paying, and D5 expiry. Every failure is declared on evidence at
 * the follower's evidence block (final by the service's rule, processed by the stream): a revert in a
 * block at or below it, a router deadline passed by its chain time. Above it a reorganisation may
 * still bring the payment in. The receipts of all reported transactions are read in parallel; the
 * settlements are written in one short transaction.
 */

/** Receipts read at once. */
export const RECEIPT_CONCURRENCY = 8;

export interface WatchDeps {
  chains: SessionChains;
  config: Pick<Config, 'paymentMiningTimeoutMinutes'>;
  /** Wall clock (expiry, mining timeout); chain time comes from block headers. */
  now?: () => Date;
}

export async function watchSessions(
  deps: WatchDeps,
  network: SessionNetwork,
  ctx: TickContext,
): Promise<string[]> {
  const now = deps.now?.() ?? new Date();
  const open = (
    await ctx.read((em) =>
      em.execute<SnapshotRow[]>(
        `select ${SNAPSHOT_COLUMNS} from sessions s
          where s.status in ('pending', 'processing') and s.payment_id is null
            and (s.network = ? or s.network is null)
            and (s.reported_tx_hash is not null or s.expires_at <= ?)`,
        [network.id, now],
      ),
    )
  ).map(snapshotOf);
  if (open.length === 0) return [];
  // Undefined before the stream has processed a final block: then only a session without a network
  // (no chain can pay it) can end.
  const evidence = await ctx.evidence();

  const reported = open.filter((s) => s.status === 'processing' && s.reportedTxHash);
  const receipts = await mapLimit(reported, RECEIPT_CONCURRENCY, (s) =>
    deps.chains.client(network).getReceipt(s.reportedTxHash!),
  );
  const changes: SessionChange[] = [];
  const minedWithoutPayment = new Set<string>();
  const timeoutMs = deps.config.paymentMiningTimeoutMinutes * 60_000;
  reported.forEach((s, i) => {
    const outcome = reportOutcome(s, receipts[i] ?? null, ctx, evidence, network, now, timeoutMs);
    if (outcome === 'mined_without_payment') minedWithoutPayment.add(s.id);
    else if (outcome) changes.push(outcome);
  });
  for (const s of open) {
    if (changes.some((c) => c.session.id === s.id) || !expired(s, evidence, now, minedWithoutPayment))
      continue;
    const reason = s.status === 'processing' ? 'no_payment' : 'expired';
    changes.push({ kind: 'failed', session: s, set: failed('failed', reason, now) });
  }
  if (changes.length === 0) return [];
  // A session a player action or the stream moved since the read above is left as it now is: this
  // watch reads every open session again at the next tick, whatever the cursor, and decides again.
  const { applied } = await ctx.transaction((tx: EntityManager) => transitionSessions(tx, changes, 'report'));
  return [...applied];
}

/** A reported transaction's fate: reverted, never mined, mined without paying, or undecided (null). */
function reportOutcome(
  s: FollowedSession,
  receipt: TxReceipt | null,
  ctx: TickContext,
  evidence: BlockHeader | undefined,
  network: SessionNetwork,
  now: Date,
  timeoutMs: number,
): SessionChange | 'mined_without_payment' | null {
  if (!receipt) {
    // Not mined: failed only once the router can no longer accept this session's payment by the
    // chain's own clock at a final block (a dropped transaction may be sent again until then, and
    // that payment must find its session open).
    const overdue = s.reportedAt && now.getTime() - s.reportedAt.getTime() >= timeoutMs;
    return overdue && pastRouterDeadline(s, evidence)
      ? { kind: 'failed', session: s, set: failed('failed', 'not_mined', now) }
      : null;
  }
  // Its logs are not all in the ledger until the follower has passed its block.
  if (receipt.blockNumber > ctx.cursor.number) return null;
  if (receipt.success) return 'mined_without_payment';
  // A revert is the session's end only in a final block: above it, a reorganisation may mine the
  // same transaction again, paying. The tier's depth still applies where it is deeper than finality.
  if (!evidence || receipt.blockNumber > evidence.number) return null;
  const depth = ctx.head.number - receipt.blockNumber + 1;
  if (depth < confirmationsFor(network, s.amount ?? '0')) return null;
  return {
    kind: 'failed',
    session: s,
    set: failed('reverted', 'reverted', now),
    txHash: s.reportedTxHash,
  };
}

/**
 * D5 expiry: past `expires_at` by the wall clock and past the router deadline by the chain's own
 * clock at the evidence block (final and processed, so no payment can still be found), with no
 * payment accepted. A session that reported a transaction expires only once that transaction mined
 * without paying it.
 */
function expired(
  s: FollowedSession,
  evidence: BlockHeader | undefined,
  now: Date,
  minedWithoutPayment: Set<string>,
): boolean {
  if (s.expiresAt > now) return false;
  if (s.status === 'processing' && !minedWithoutPayment.has(s.id)) return false;
  if (!s.network) return true;
  return pastRouterDeadline(s, evidence);
}

/**
 * A final, processed block is past the router deadline: every block after it is too, so the router
 * refuses the session's payment from now on, and none was found up to it.
 */
function pastRouterDeadline(s: FollowedSession, evidence: BlockHeader | undefined): boolean {
  if (!evidence) return false;
  const deadline = s.deadline ?? Math.floor(s.expiresAt.getTime() / 1000);
  return evidence.timestamp > deadline;
}

const failed = (step: 'failed' | 'reverted', reason: string, at: Date) => ({
  status: 'failed' as const,
  step,
  failureReason: reason,
  settledAt: at,
});
