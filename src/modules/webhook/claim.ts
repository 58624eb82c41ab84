import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { addJob } from '../../worker/jobs.ts';
import {
  DELIVER_WEBHOOK_TASK,
  DELIVERY_CHANNEL,
  deliveryJobKey,
  NOTICE_JSON,
  notifyDelivery,
} from './outbox.ts';
import { MAX_ATTEMPTS } from './schedule.ts';
import { WebhookAttempt, WebhookDelivery } from './webhook.entity.ts';

/**
 * Claiming an attempt. The common case (a pending delivery that is due) is one statement: it counts
 * the attempt, takes the lease, records the attempt's start, announces `delivering` and returns what
 * the attempt needs (body, keys, newest active API key). Round trips dominate the cost of a delivery,
 * so this path stays a single statement. Anything else goes through `triage`, under a row lock.
 */

export const INTERRUPTED = 'interrupted: the worker stopped before the outcome was recorded';

export interface Claimed {
  number: number;
  targetUrl: string;
  body: string;
  event: string;
  idempotencyKey: string;
  /** Null when the merchant has no active API key left. */
  keyId: string | null;
  secretSealed: string | null;
}

const CLAIM_SQL = `
with d as (
  update webhook_deliveries
     set status = 'delivering', attempts = attempts + 1, lease_until = ?::timestamptz,
         next_attempt_at = null, updated_at = ?::timestamptz
   where id = ? and status = 'pending' and attempts < ${MAX_ATTEMPTS}
     and (attempts = 0 or next_attempt_at <= ?::timestamptz)
  returning *
), started as (
  insert into webhook_attempts (delivery_id, number, started_at) select id, attempts, ?::timestamptz from d
)
select d.attempts as number, d.target_url, e.body, e.event, e.idempotency_key, k.id as key_id, k.secret_sealed,
       pg_notify(?, ${NOTICE_JSON})
  from d
  join webhook_events e on e.id = d.event_id
  left join lateral (
    select id, secret_sealed from api_keys
     where merchant_id = d.merchant_id and (revoked_at is null or revoked_at > ?::timestamptz)
     order by created_at desc, id desc limit 1
  ) k on true`;

/** Claims the next attempt when the delivery is pending and due; undefined otherwise. */
export async function claimDue(
  em: EntityManager,
  id: string,
  now: Date,
  leaseUntil: Date,
): Promise<Claimed | undefined> {
  const at = now.toISOString();
  const [row] = await em.execute<Record<string, string | number | null>[]>(CLAIM_SQL, [
    leaseUntil.toISOString(),
    at,
    id,
    at,
    at,
    DELIVERY_CHANNEL,
    at,
  ]);
  if (!row) return undefined;
  return {
    number: Number(row.number),
    targetUrl: String(row.target_url),
    body: String(row.body),
    event: String(row.event),
    idempotencyKey: String(row.idempotency_key),
    keyId: row.key_id === null ? null : String(row.key_id),
    secretSealed: row.secret_sealed === null ? null : String(row.secret_sealed),
  };
}

/** Why a delivery could not be claimed, or `due` when it can be claimed now. */
export type Triage = 'due' | 'missing' | 'finished' | 'not_due' | 'in_flight' | 'failed';

/**
 * The uncommon cases, under a row lock: finished (nothing to do), not yet due (job re-queued for
 * then), a live lease held by another run (re-queued for the lease's end), or an expired lease:
 * the run holding it died mid-attempt, so that attempt is closed as interrupted and the next one is
 * due at once (at-least-once delivery).
 */
export function triage(em: EntityManager, id: string, now: Date, logger: Logger): Promise<Triage> {
  return em.transactional(async (tx) => {
    const d = await tx.findOne(
      WebhookDelivery,
      { id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!d) return 'missing';
    if (d.status === 'delivered' || d.status === 'failed') return 'finished';
    if (d.status === 'delivering') {
      if (d.leaseUntil && d.leaseUntil > now) {
        await requeue(tx, id, d.leaseUntil);
        return 'in_flight';
      }
      const open = await tx.findOne(WebhookAttempt, { delivery: id, number: d.attempts });
      if (open && open.statusCode == null && open.error == null) open.error = INTERRUPTED;
      logger.warn('webhook attempt interrupted; taking over', { deliveryId: id, attempt: d.attempts });
      const last = d.attempts >= MAX_ATTEMPTS;
      Object.assign(d, {
        status: last ? 'failed' : 'pending',
        nextAttemptAt: last ? null : now,
        leaseUntil: null,
      });
      d.lastError = INTERRUPTED;
      await tx.flush();
      if (last) await notifyDelivery(tx, id);
      return last ? 'failed' : 'due';
    }
    if (d.attempts > 0 && d.nextAttemptAt && d.nextAttemptAt > now) {
      await requeue(tx, id, d.nextAttemptAt);
      return 'not_due';
    }
    return 'due';
  });
}

/** (Re)schedules the delivery's job; a running job keeps going and a new one takes the key. */
export function requeue(em: EntityManager, deliveryId: string, runAt?: Date): Promise<void> {
  return addJob(em, DELIVER_WEBHOOK_TASK, { deliveryId }, { jobKey: deliveryJobKey(deliveryId), runAt });
}
