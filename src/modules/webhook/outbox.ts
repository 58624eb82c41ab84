import { z } from 'zod';
import { columnArrays, executeBound } from '../../db/bulk.ts';
import { addJob, defineJob } from '../../db/jobs.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Topic } from '../../db/topic.ts';
import { newId } from '../../lib/ids.ts';

/**
 * The webhook outbox: the one function other modules call to announce an outcome. It writes the event
 * and its first delivery through the caller's EntityManager, so both commit or roll back with the
 * business change that caused them (section 6.1: a persistent outbox, sent off the request path), and
 * announces the delivery (NOTIFY, sent at commit). The delivery rows are the queue: no job is added per
 * event; worker processes hear the announcement and queue a run that sends whatever is due (waker.ts).
 */

export const WEBHOOK_EVENT_NAMES = [
  'payment.completed',
  'payment.failed',
  'deposit.confirmed',
  'payout.completed',
  'payout.failed',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENT_NAMES)[number];

export interface WebhookEvent {
  merchantId: string;
  event: WebhookEventName;
  /** deposit id, session id or payout id: X-Idempotency-Key = `${event}:${subjectId}` (D9) */
  subjectId: string;
  /** per-session/payout/batch callback_url; null/undefined → merchant default */
  callbackUrl?: string | null;
  /** body fields without `event`; undefined/null/'' fields are dropped (never null in JSON) */
  body: Record<string, unknown>;
  /** `occurred_at` of the body; defaults to now (a body field `occurred_at` wins over both). */
  occurredAt?: Date;
}

/**
 * The job that sends a delivery's next attempt (a retry, or one the sweeper re-queued), with whatever
 * else is due (delivery.ts); without a delivery id it is a "pump" run, which sends whatever is due: it
 * is queued for new deliveries (waker.ts) and when a run leaves work behind. One pump waits at a time:
 * the job key merges them (a running one keeps going, and a new one takes the key).
 */
export const DELIVER_WEBHOOK_JOB = defineJob({
  name: 'deliver_webhook',
  payload: z.object({ deliveryId: z.string().min(1).max(40).optional() }),
  key: ({ deliveryId }) => `deliver_webhook:${deliveryId ?? 'pump'}`,
});
/** Its task name, for the statements that add or look up its jobs in SQL. */
export const DELIVER_WEBHOOK_TASK = DELIVER_WEBHOOK_JOB.name;

/** Queues a pump run: it starts after this returns, so it sees every delivery committed before. */
export function queuePump(em: EntityManager): Promise<void> {
  return addJob(em, DELIVER_WEBHOOK_JOB, {});
}
/** PostgreSQL NOTIFY channel announcing delivery changes (payload: {@link DeliveryNotice}). */
export const DELIVERY_CHANNEL = 'webhook_delivery';

/**
 * What a NOTIFY on {@link DELIVERY_CHANNEL} carries: the delivery's state right after the change, so
 * that subscribers see every transition even when the next one has already happened.
 */
export interface DeliveryNotice {
  id: string;
  merchantId: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  updatedAt: string;
}

/**
 * The delivery topic. Unlike other topics its payload carries the delivery's state, not only its id:
 * a subscriber reading the row after a quick retry would miss the transitions in between.
 */
export const deliveryTopic: Topic<DeliveryNotice> = {
  channel: DELIVERY_CHANNEL,
  parse: (payload) => {
    const p = payload as Partial<DeliveryNotice> | null;
    return typeof p?.id === 'string' && typeof p.merchantId === 'string' ? (p as DeliveryNotice) : undefined;
  },
};

/** SQL for the {@link DeliveryNotice} of the `webhook_deliveries` row aliased `d` (well under NOTIFY's 8 kB). */
export const NOTICE_JSON = `json_build_object('id', d.id, 'merchantId', d.merchant_id, 'status', d.status,
  'attempts', d.attempts, 'nextAttemptAt', d.next_attempt_at, 'lastStatusCode', d.last_status_code,
  'lastError', left(d.last_error, 2000), 'deliveredAt', d.delivered_at, 'updatedAt', d.updated_at)::text`;

/**
 * SQL adding the `deliver_webhook` job of every row of the CTE `rows` (with an `id`) matching `where`,
 * at `runAt` (SQL), in one graphile_worker.add_jobs call on the statement's connection (so in its
 * transaction); evaluates to the number added, null when none. The key is DELIVER_WEBHOOK_JOB's
 * (`deliver_webhook:<delivery id>`), written in SQL (test/webhook/batching.test.ts reads jobs by it).
 */
export const addDeliveryJobsSql = (rows: string, runAt: string, where = 'true'): string => `
  case when exists (select 1 from ${rows} where ${where}) then (
    select count(*) from graphile_worker.add_jobs(array(
      select row('${DELIVER_WEBHOOK_TASK}', json_build_object('deliveryId', ${rows}.id), null::text, ${runAt},
                 null::smallint, '${DELIVER_WEBHOOK_TASK}:' || ${rows}.id, null::smallint,
                 null::text[])::graphile_worker.job_spec
        from ${rows} where ${where}
    ))
  ) end`;

export const idempotencyKeyOf = (event: string, subjectId: string): string => `${event}:${subjectId}`;

/**
 * The exact body of section 6.5: `{"event", ...fields, "occurred_at"}` on one line. Empty fields
 * (undefined, null, '') are omitted; `merchant_id` is always the event's merchant; Dates become ISO
 * strings and bigints numbers (strings when beyond 2^53, which no integer field of section 2.8 reaches).
 */
export function buildWebhookBody(event: WebhookEvent): string {
  const out: Record<string, unknown> = { event: event.event };
  let occurredAt: Date = event.occurredAt ?? new Date();
  let hasMerchant = false;
  for (const [key, raw] of Object.entries(event.body)) {
    if (key === 'event') continue;
    if (key === 'occurred_at') {
      if (raw !== undefined && raw !== null && raw !== '') occurredAt = new Date(raw as string | Date);
      continue;
    }
    if (key === 'merchant_id') {
      out.merchant_id = event.merchantId;
      hasMerchant = true;
      continue;
    }
    const value = jsonValue(raw);
    if (value !== undefined) out[key] = value;
  }
  if (!hasMerchant) out.merchant_id = event.merchantId;
  if (Number.isNaN(occurredAt.getTime())) throw new Error('webhook body: occurred_at is not a valid date');
  out.occurred_at = occurredAt.toISOString();
  return JSON.stringify(out);
}

function jsonValue(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  }
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Call inside the business transaction (em from em.transactional). Returns the delivery id, or null
 * when no webhook is due (no API key, webhooks disabled, no target).
 */
export async function enqueueWebhook(em: EntityManager, event: WebhookEvent): Promise<string | null> {
  const [id] = await enqueueWebhooks(em, [event]);
  return id ?? null;
}

/**
 * Many events at once, in the caller's transaction, in one statement whatever their number (a
 * follower settling thousands of sessions in one chunk): the events that are due (section 5.4: not
 * without an active API key, nor when switched off, nor without a target) and not enqueued before,
 * their deliveries and notices. Returns each event's delivery id, or null; an
 * event enqueued before answers with its first delivery (a settlement that ran twice).
 */
export async function enqueueWebhooks(
  em: EntityManager,
  events: readonly WebhookEvent[],
): Promise<(string | null)[]> {
  if (events.length === 0) return [];
  // Outside a transaction the writes still commit together.
  if (!em.isInTransaction()) return em.transactional((tx) => enqueueWebhooks(tx, events));
  const { input, sql, params } = enqueueStatement(events);
  const rows = await executeBound<{
    ord: number;
    merchant: string | null;
    target: string | null;
    delivery_id: string | null;
  }>(em, sql, params);
  const unknown = rows.find((r) => r.merchant === null);
  if (unknown) throw new Error(`enqueueWebhook: unknown merchant ${events[unknown.ord]!.merchantId}`);
  const ids: (string | null)[] = events.map(() => null);
  for (const r of rows) if (r.delivery_id) ids[r.ord] = r.delivery_id;
  for (const r of rows) {
    if (!r.target || r.delivery_id) continue;
    // The same logical event was enqueued before: never created twice; answer with its first
    // delivery. (A statement of its own: it must see a concurrent enqueue that committed while ours
    // waited on the unique index.)
    const e = input[r.ord]!;
    const [existing] = await em.execute<{ id: string }[]>(
      `select d.id from webhook_deliveries d join webhook_events e on e.id = d.event_id
        where e.merchant_id = ? and e.idempotency_key = ? order by d.created_at, d.id limit 1`,
      [e.merchant_id, e.idempotency_key],
    );
    ids[r.ord] = existing?.id ?? null;
  }
  return ids;
}

/**
 * The statement that enqueues `events` ({@link ENQUEUE_SQL}) with its parameters and its input rows
 * (fresh event and delivery ids); exported for the tests that read its plan.
 */
export function enqueueStatement(events: readonly WebhookEvent[]) {
  // An event's first delivery takes the event's random part (ENQUEUE_SQL derives its id).
  const input = events.map((event, ord) => ({
    ord,
    id: newId('webhook').replace(/^wh_/, 'evt_'),
    merchant_id: event.merchantId,
    event: event.event,
    subject_id: event.subjectId,
    idempotency_key: idempotencyKeyOf(event.event, event.subjectId),
    callback_url: event.callbackUrl || null,
    body: buildWebhookBody(event),
  }));
  return { input, sql: ENQUEUE_SQL, params: [DELIVERY_CHANNEL, ...columnArrays(input, ENQUEUE_COLUMNS)] };
}

/** The input columns of {@link ENQUEUE_SQL}, in the order of its `unnest` parameters ($2…). */
const ENQUEUE_COLUMNS = [
  'ord',
  'id',
  'merchant_id',
  'event',
  'subject_id',
  'idempotency_key',
  'callback_url',
  'body',
] as const;

/**
 * One row per input event: its merchant (null when unknown), the target when a webhook is due, and
 * the delivery's id when the event was created now (null when the logical event existed already).
 * The input is columns of arrays (`unnest`), not a JSON document: the planner then knows how many
 * events there are, and joins the statement's row sets by hash; with the 100 rows it assumes of a
 * `json_to_recordset`, it matched each delivery to its event by a nested loop, scanning every event
 * once per event (a second of a backfill's thousands). The deliveries are made from the events
 * created, their ids derived from the events' (never joined back to the input): the input joined to
 * its merchant is a set the planner cannot count (it takes one row), and pairing it with the events
 * created was again a nested loop, quadratic in the events. Millisecond timestamps: exactly what a JS
 * Date (and so a page cursor) holds.
 */
const ENQUEUE_SQL = `
with input as (
  select * from unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
             as i(ord, id, merchant_id, event, subject_id, idempotency_key, callback_url, body)
), due as (
  select i.*, coalesce(i.callback_url, m.webhook_url) as target
    from input i join merchants m on m.id = i.merchant_id
   where m.webhooks_enabled and coalesce(i.callback_url, m.webhook_url) is not null
     and exists (select 1 from api_keys k
                  where k.merchant_id = m.id and (k.revoked_at is null or k.revoked_at > now()))
), created as (
  insert into webhook_events (id, merchant_id, event, subject_id, idempotency_key, callback_url, body, created_at)
  select id, merchant_id, event, subject_id, idempotency_key, callback_url, body, clock_timestamp() from due
   order by ord
  on conflict (merchant_id, idempotency_key) do nothing
  returning id, merchant_id, callback_url, created_at
), d as (
  insert into webhook_deliveries (id, event_id, merchant_id, target_url, status, attempts, next_attempt_at, created_at, updated_at)
  select 'wh_' || substr(c.id, 5), c.id, c.merchant_id, coalesce(c.callback_url, m.webhook_url), 'pending', 0,
         t.at, t.at, t.at
    from created c join merchants m on m.id = c.merchant_id,
         (select date_trunc('milliseconds', clock_timestamp()) as at) t
   order by c.created_at
  returning *
)
select i.ord, m.id as merchant, du.target, d.id as delivery_id,
       (select count(pg_notify($1::text, ${NOTICE_JSON})) from d) as notices
  from input i
  left join merchants m on m.id = i.merchant_id
  left join due du on du.ord = i.ord
  left join d on d.event_id = i.id
 order by i.ord`;

/**
 * The delivery rows and their NOTIFYs (which wake the worker, as for every new delivery), in one
 * statement. Millisecond timestamps: exactly what a JS Date (and so a page cursor) holds.
 */
const DELIVERIES_SQL = `
with input as (
  select * from jsonb_to_recordset(?::jsonb) as i(id text, event_id text, merchant_id text, target_url text)
), d as (
  insert into webhook_deliveries (id, event_id, merchant_id, target_url, status, attempts, next_attempt_at, created_at, updated_at)
  select i.id, i.event_id, i.merchant_id, i.target_url, 'pending', 0, t.at, t.at, t.at
    from input i, (select date_trunc('milliseconds', clock_timestamp()) as at) t
  returning *
)
select (select count(pg_notify(?, ${NOTICE_JSON})) from d) as notices`;

async function insertDeliveries(
  em: EntityManager,
  rows: { id: string; event_id: string | null; merchant_id: string | null; target_url: string | null }[],
): Promise<void> {
  await em.execute(DELIVERIES_SQL, [JSON.stringify(rows), DELIVERY_CHANNEL]);
}

/** Adds a fresh delivery of a stored event (first attempt as soon as a worker hears of it); used by resends. */
export async function createDelivery(
  em: EntityManager,
  input: { eventId: string; merchantId: string; targetUrl: string },
): Promise<string> {
  const id = newId('webhook');
  await insertDeliveries(em, [
    { id, event_id: input.eventId, merchant_id: input.merchantId, target_url: input.targetUrl },
  ]);
  return id;
}

/** NOTIFY the delivery's current row on the caller's connection: sent when (and only if) the transaction commits. */
export async function notifyDelivery(em: EntityManager, deliveryId: string): Promise<void> {
  await em.execute(`select pg_notify(?, ${NOTICE_JSON}) from webhook_deliveries d where d.id = ?`, [
    DELIVERY_CHANNEL,
    deliveryId,
  ]);
}
