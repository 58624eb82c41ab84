import type { EntityManager } from '../../db/orm.ts';
import { formatUnits } from '../../money.ts';
import { enqueueWebhook } from '../webhook/outbox.ts';
import type { Session, Step } from './session.entity.ts';
import { Session as SessionEntity } from './session.entity.ts';

/**
 * Every state change the chain causes on a session, each one guarded by the state it leaves
 * (`WHERE status = ...`), so a listener pass that runs twice, or two passes racing, change a session
 * once and announce it once. Callers run these inside their transaction: the change, the checkpoint
 * and the webhook commit together.
 */

/** A router `Payment` accepted for a session (D5 matching done by the caller). */
export interface AcceptedPayment {
  txHash: string;
  blockNumber: number;
  blockHash: string;
  logIndex: number;
  payer: string;
  paidRaw: bigint;
}

const OPEN = ['pending', 'processing'] as const;

/**
 * Records payments: pending → processing ("payment seen"), or refreshes the block of the same payment
 * seen again after a reorganisation re-included it. A different payment for a session that already
 * has one is ignored (the first accepted payment settles it). One statement for the whole list (at
 * most one entry per session); returns the ids it changed.
 */
export async function recordPayments(
  em: EntityManager,
  payments: readonly (AcceptedPayment & { sessionId: string })[],
): Promise<string[]> {
  if (payments.length === 0) return [];
  const values = payments.map(() => '(?, ?, ?::bigint, ?, ?::int, ?, ?)').join(', ');
  const rows = await em.execute<{ id: string }[]>(
    `update sessions s
        set status = 'processing', step = 'processing', tx_hash = v.tx_hash, block_number = v.block_number,
            block_hash = v.block_hash, log_index = v.log_index, payer = v.payer, paid_raw = v.paid_raw,
            updated_at = now()
       from (values ${values}) as v (id, tx_hash, block_number, block_hash, log_index, payer, paid_raw)
      where s.id = v.id and s.status in ('pending', 'processing') and (s.tx_hash is null or s.tx_hash = v.tx_hash)
      returning s.id`,
    payments.flatMap((p) => [
      p.sessionId,
      p.txHash,
      p.blockNumber,
      p.blockHash,
      p.logIndex,
      p.payer,
      p.paidRaw.toString(),
    ]),
  );
  return rows.map((r) => r.id);
}

/**
 * The recorded payment's block left the canonical chain: forget it. The session waits again, in
 * `processing` when the player reported a transaction, else back at the payment step.
 */
export async function forgetPayment(em: EntityManager, session: Session): Promise<boolean> {
  const reported = Boolean(session.reportedTxHash);
  const changed = await em.nativeUpdate(
    SessionEntity,
    { id: session.id, status: 'processing', txHash: session.txHash, blockHash: session.blockHash },
    {
      status: reported ? 'processing' : 'pending',
      step: reported ? 'processing' : 'awaiting_payment',
      txHash: null,
      blockNumber: null,
      blockHash: null,
      logIndex: null,
      payer: null,
      paidRaw: null,
      updatedAt: new Date(),
    },
  );
  return changed > 0;
}

/** processing → completed once the payment is deep enough and still canonical; webhook in the same transaction. */
export async function completeSession(
  em: EntityManager,
  session: Session,
  decimals: number,
): Promise<boolean> {
  const now = new Date();
  const changed = await em.nativeUpdate(
    SessionEntity,
    { id: session.id, status: 'processing', txHash: session.txHash, blockHash: session.blockHash },
    { status: 'completed', step: 'completed', settledAt: now, updatedAt: now },
  );
  if (changed === 0) return false;
  await announce(em, session, 'payment.completed', {
    status: 'completed',
    txHash: session.txHash,
    // The amount the session asked for; the router event may carry more (accepted as D5 allows).
    amount: session.amount ?? (session.paidRaw ? formatUnits(BigInt(session.paidRaw), decimals) : null),
    at: now,
  });
  return true;
}

/**
 * Settles a session `failed`: step `reverted` (payment mined and rejected), or `failed` (expired, never
 * mined). `from` names the statuses it may leave.
 */
export async function failSession(
  em: EntityManager,
  session: Session,
  outcome: { step: Extract<Step, 'failed' | 'reverted'>; reason: string; txHash?: string | null },
  from: readonly ('pending' | 'processing')[] = OPEN,
): Promise<boolean> {
  const now = new Date();
  const changed = await em.nativeUpdate(
    SessionEntity,
    // Never fail a session whose payment was accepted: that one completes or is forgotten first.
    { id: session.id, status: { $in: [...from] }, txHash: null },
    { status: 'failed', step: outcome.step, failureReason: outcome.reason, settledAt: now, updatedAt: now },
  );
  if (changed === 0) return false;
  await announce(em, session, 'payment.failed', {
    status: 'failed',
    txHash: outcome.txHash ?? null,
    amount: session.amount,
    at: now,
  });
  return true;
}

async function announce(
  em: EntityManager,
  session: Session,
  event: 'payment.completed' | 'payment.failed',
  fields: { status: string; txHash: string | null | undefined; amount: string | null | undefined; at: Date },
): Promise<void> {
  await enqueueWebhook(em, {
    merchantId: session.merchant.id,
    event,
    subjectId: session.id,
    callbackUrl: session.callbackUrl,
    occurredAt: fields.at,
    body: {
      session_id: session.id,
      merchant_id: session.merchant.id,
      player_id: session.playerId,
      external_order_id: session.externalOrderId,
      network: session.network,
      token: session.token,
      amount: fields.amount,
      status: fields.status,
      tx_hash: fields.txHash,
      order_ref: session.orderRef,
    },
  });
}
