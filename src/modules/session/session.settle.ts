import { confirmationsFor } from '../../chains/networks.ts';
import type { BlockHeader } from '../../chains/types.ts';
import { untilApplied } from '../../db/fresh-reads.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { formatUnits } from '../../money.ts';
import { forgetPaymentsAbove } from '../ledger/ledger.ts';
import type { SessionNetwork } from './session.chain.ts';
import { SNAPSHOT_COLUMNS, type SnapshotRow, snapshotOf } from './session.snapshot.ts';
import { type SessionChange, transitionSessions } from './session.transition.ts';

/**
 * What the chain follower's blocks do to paid sessions: complete them at their tier's depth, and
 * release their payments when a reorganisation takes the payment's block away. Both run inside the
 * follower's transaction; the follower guarantees that every ledger row it left in place is on the
 * chain ending in `head`, so depth is all there is to check.
 */

interface PaidRow extends SnapshotRow {
  block_number: string;
  amount_raw: string;
  tx_hash: string;
}

const PAID = `select ${SNAPSHOT_COLUMNS}, p.block_number, p.amount_raw::text as amount_raw, p.tx_hash
  from sessions s join payments p on p.id = s.payment_id`;

/** Whether a payment of `amountRaw` (base units of `token`) in `block` is at its tier's depth at `head` (D5). */
export function atDepth(
  network: SessionNetwork,
  head: Pick<BlockHeader, 'number'>,
  payment: { token: string | null; block: number; amountRaw: string },
): boolean {
  const decimals = network.tokens.find((t) => t.symbol === payment.token)?.decimals ?? 0;
  const paid = formatUnits(BigInt(payment.amountRaw), decimals);
  return head.number - payment.block + 1 >= confirmationsFor(network, paid);
}

/** The `completed` change of a paid session, read (or about to be left) in `processing`. */
export function completion(session: SessionChange['session'], txHash: string, at: Date): SessionChange {
  return {
    kind: 'completed',
    session,
    set: { status: 'completed', step: 'completed', settledAt: at },
    txHash,
  };
}

/**
 * processing → completed for every payment at its tier's depth (larger amounts wait longer, D5). A
 * session a player action moved in between is decided again from a fresh, locked read (rule 20).
 */
export async function completeDue(
  tx: EntityManager,
  network: SessionNetwork,
  head: BlockHeader,
): Promise<string[]> {
  const shallowest = Math.min(...network.confirmations.map((t) => t.blocks));
  const completed: string[] = [];
  await untilApplied(`sessions completing on ${network.id}`, async ({ fresh }) => {
    const rows = await tx.execute<PaidRow[]>(
      `${PAID} where s.network = ? and s.status = 'processing' and p.block_number <= ?${fresh ? ' for update of s' : ''}`,
      [network.id, head.number - Math.max(shallowest, 1) + 1],
    );
    const now = new Date();
    const changes: SessionChange[] = [];
    for (const row of rows) {
      const payment = { token: row.token, block: Number(row.block_number), amountRaw: row.amount_raw };
      if (atDepth(network, head, payment)) changes.push(completion(snapshotOf(row), row.tx_hash, now));
    }
    const { applied, stale } = await transitionSessions(tx, changes, 'report');
    completed.push(...applied);
    return stale.map((c) => c.session.id);
  });
  return completed;
}

/**
 * Blocks above `ancestor` left the chain: their payments stop paying open sessions (which wait
 * again: in `processing` when the player reported a transaction, else at the payment step) and leave
 * the ledger. A completed session cannot be undone; its payment stays and operators are alerted.
 */
export async function releasePayments(
  tx: EntityManager,
  network: SessionNetwork,
  ancestor: number,
  logger: Pick<Logger, 'warn' | 'error'>,
): Promise<string[]> {
  // Locked: a player action racing this must not leave a session claiming a deleted payment.
  const rows = await tx.execute<PaidRow[]>(
    `${PAID} where p.network = ? and p.block_number > ? for update of s`,
    [network.id, ancestor],
  );
  const changes: SessionChange[] = [];
  for (const row of rows) {
    const session = snapshotOf(row);
    if (session.status !== 'processing') {
      logger.error('a settled session’s payment left the canonical chain', {
        session: session.id,
        tx: row.tx_hash,
        block: Number(row.block_number),
      });
      continue;
    }
    const reported = Boolean(session.reportedTxHash);
    changes.push({
      kind: 'payment_lost',
      session,
      set: {
        status: reported ? 'processing' : 'pending',
        step: reported ? 'processing' : 'awaiting_payment',
        paymentId: null,
      },
    });
    logger.warn('payment block left the canonical chain', {
      session: session.id,
      block: Number(row.block_number),
    });
  }
  // The rows are locked: no change can lose its version race, and one that did would roll back.
  const { applied } = await transitionSessions(tx, changes, 'raise');
  await forgetPaymentsAbove(tx, network.id, ancestor);
  return [...applied];
}
