import { LockMode } from '@mikro-orm/core';
import { addJob } from '../../db/jobs.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import {
  DELIVER_WEBHOOK_JOB,
  DELIVER_WEBHOOK_TASK,
  DELIVERY_CHANNEL,
  NOTICE_JSON,
  notifyDelivery,
} from './outbox.ts';
import { MAX_ATTEMPTS } from './schedule.ts';
import { WebhookAttempt, WebhookDelivery } from './webhook.entity.ts';

/**
 * Claiming attempts. The common case is one statement for a whole batch: it takes up to `limit` due
 * pending deliveries (the job's own first) with `FOR UPDATE SKIP LOCKED`, so concurrent jobs split the
 * work; for each it counts the attempt, takes the lease, records the attempt's start, announces
 * `delivering`, removes the delivery's own job (it would find nothing to do; a delivery whose job is
 * running already is left to that job),
 * and returns what the attempt needs (body, keys, newest active API key). A merchant never has more
 * than `perMerchant` attempts in flight (live leases, in every process), so a slow endpoint holds at
 * most its own slots. Anything else about the job's own delivery goes through `triage`, under a lock.
 */

export const INTERRUPTED = 'interrupted: the worker stopped before the outcome was recorded';

export interface Claimed {
  deliveryId: string;
  merchantId: string;
  number: number;
  targetUrl: string;
  body: string;
  event: string;
  idempotencyKey: string;
  /** Null when the merchant has no active API key left. */
  keyId: string | null;
  secretSealed: string | null;
}

const DUE = `status = 'pending' and attempts < ${MAX_ATTEMPTS} and (attempts = 0 or next_attempt_at <= ?::timestamptz)`;

const CLAIM_SQL = `
with busy as (
  select merchant_id, count(*)::int as n from webhook_deliveries
   where status = 'delivering' and lease_until > ?::timestamptz
   group by merchant_id
), own as (
  select id, merchant_id, next_attempt_at from webhook_deliveries
   where id = ? and ${DUE}
   for update skip locked
), others as (
  select id, merchant_id, next_attempt_at from webhook_deliveries w
   where ${DUE} and id is distinct from ?
     and not exists (select 1 from busy b where b.merchant_id = w.merchant_id and b.n >= ?)
     -- A delivery whose own job is running already is left to it.
     and not exists (select 1 from graphile_worker.jobs j
                      where j.key = '${DELIVER_WEBHOOK_TASK}:' || w.id and j.locked_at is not null)
   order by next_attempt_at, id
   limit ?
   for update skip locked
), candidates as (
  select *, true as mine from own union all select *, false from others
), pick as (
  select r.id, r.slot from (
    select c.*, coalesce(b.n, 0) + row_number() over (partition by c.merchant_id
                                                       order by c.mine desc, c.next_attempt_at, c.id) as slot
      from candidates c left join busy b on b.merchant_id = c.merchant_id
  ) r
   where r.slot <= ?
   order by r.mine desc, r.next_attempt_at, r.id
   limit ?
), d as (
  update webhook_deliveries w
     set status = 'delivering', attempts = attempts + 1, lease_until = ?::timestamptz,
         next_attempt_at = null, updated_at = ?::timestamptz
    from pick where w.id = pick.id
  returning w.*
), started as (
  insert into webhook_attempts (delivery_id, number, started_at) select id, attempts, ?::timestamptz from d
), unneeded as (
  select count(graphile_worker.remove_job(? || d.id)) as n from d where d.id is distinct from ?
), claimed as (
  select d.id, d.merchant_id, d.attempts as number, d.target_url, e.body, e.event, e.idempotency_key,
         k.id as key_id, k.secret_sealed, pg_notify(?, ${NOTICE_JSON}) as notified
    from d
    join webhook_events e on e.id = d.event_id
    left join lateral (
      select id, secret_sealed from api_keys
       where merchant_id = d.merchant_id and (revoked_at is null or revoked_at > ?::timestamptz)
       order by created_at desc, id desc limit 1
    ) k on true
)
select c.*, o.status as own_status,
       o.status = 'pending' and (o.attempts = 0 or o.next_attempt_at <= ?::timestamptz) as own_due,
       (select n from unneeded) as removed,
       (select count(*) from others) >= ? or (select count(*) from candidates) > (select count(*) from d)
         or exists (select 1 from pick where slot >= ?) as more
  from (select 1) as one
  left join claimed c on true
  left join webhook_deliveries o on o.id = ?`;

/** What a claim took, whether more may be due, and the job's own delivery's state before it. */
export interface ClaimResult {
  claimed: Claimed[];
  /** Due deliveries were left behind (the limit or a merchant's cap): claim again once these finish. */
  more: boolean;
  /** The own delivery's status as the claim found it (undefined: no such delivery). */
  ownStatus: string | undefined;
  /** It was pending and due, yet not claimed: held back by its merchant's cap or a concurrent claim. */
  ownDue: boolean;
}

/**
 * Claims up to `limit` due attempts: `own` first when it is due (null for none), then the longest
 * due others, at most `perMerchant` in flight per merchant. `more` is set when due deliveries were
 * left behind (the limit was reached, or a merchant reached its cap), so the caller claims again once
 * these are done: a merchant held back by its cap is served by the run that holds its slots.
 */
export async function claimBatch(
  em: EntityManager,
  input: { own: string | null; now: Date; leaseUntil: Date; limit: number; perMerchant: number },
): Promise<ClaimResult> {
  const at = input.now.toISOString();
  const rows = await em.execute<Record<string, string | number | boolean | null>[]>(CLAIM_SQL, [
    at,
    input.own,
    at,
    at,
    input.own,
    input.perMerchant,
    input.limit,
    input.perMerchant,
    input.limit,
    input.leaseUntil.toISOString(),
    at,
    at,
    `${DELIVER_WEBHOOK_TASK}:`,
    input.own,
    DELIVERY_CHANNEL,
    at,
    at,
    input.limit,
    input.perMerchant,
    input.own,
  ]);
  const first = rows[0];
  return {
    claimed: rows
      .filter((row) => row.id !== null)
      .map((row) => ({
        deliveryId: String(row.id),
        merchantId: String(row.merchant_id),
        number: Number(row.number),
        targetUrl: String(row.target_url),
        body: String(row.body),
        event: String(row.event),
        idempotencyKey: String(row.idempotency_key),
        keyId: row.key_id === null ? null : String(row.key_id),
        secretSealed: row.secret_sealed === null ? null : String(row.secret_sealed),
      })),
    more: first?.more === true,
    ownStatus: first?.own_status == null ? undefined : String(first.own_status),
    ownDue: first?.own_due === true,
  };
}

/**
 * Why a delivery could not be claimed: `due` when an orphaned attempt was just closed and the next one
 * can be claimed now; `pending` when it is due but was held back (its merchant's in-flight cap, or a
 * concurrent claim holding the row).
 */
export type Triage = 'due' | 'pending' | 'missing' | 'finished' | 'not_due' | 'in_flight' | 'failed';

/**
 * The uncommon cases, under a row lock: finished (nothing to do), not yet due (job re-queued for
 * then), a live lease held by another run (re-queued for the lease's end), due but held back, or an
 * expired lease:
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
    return 'pending';
  });
}

/** (Re)schedules the delivery's job; a running job keeps going and a new one takes the key. */
export function requeue(em: EntityManager, deliveryId: string, runAt?: Date): Promise<void> {
  return addJob(em, DELIVER_WEBHOOK_JOB, { deliveryId }, { runAt });
}
