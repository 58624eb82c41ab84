import type { EntityManager } from '../../db/orm.ts';
import { newId } from '../../lib/ids.ts';
import { addJob } from '../../worker/jobs.ts';

/**
 * The webhook outbox: the one function other modules call to announce an outcome. It writes the event,
 * its first delivery and the delivery job through the caller's EntityManager, so all three commit or
 * roll back with the business change that caused them (section 6.1: a persistent outbox, sent off the
 * request path).
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

/** graphile-worker task that sends one delivery attempt. */
export const DELIVER_WEBHOOK_TASK = 'deliver_webhook';
/** PostgreSQL NOTIFY channel announcing delivery changes (payload: {@link DeliveryNotice}). */
export const DELIVERY_CHANNEL = 'webhook_delivery';

/** What a NOTIFY on {@link DELIVERY_CHANNEL} carries; subscribers load the rest. */
export interface DeliveryNotice {
  id: string;
  merchantId: string;
  status: string;
}

/** One job key per delivery: re-adding it moves the pending job instead of adding a second one. */
export const deliveryJobKey = (deliveryId: string): string => `${DELIVER_WEBHOOK_TASK}:${deliveryId}`;

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

/** Call inside the business transaction (em from em.transactional). Returns the delivery id or null when no webhook is due (no API key, webhooks disabled, no target). */
export async function enqueueWebhook(em: EntityManager, event: WebhookEvent): Promise<string | null> {
  // Outside a transaction the three writes still commit together.
  if (!em.isInTransaction()) return em.transactional((tx) => enqueueWebhook(tx, event));

  const [merchant] = await em.execute<
    { webhook_url: string | null; webhooks_enabled: boolean; has_key: boolean }[]
  >(
    `select m.webhook_url, m.webhooks_enabled,
            exists (select 1 from api_keys k
                    where k.merchant_id = m.id and (k.revoked_at is null or k.revoked_at > now())) as has_key
       from merchants m where m.id = ?`,
    [event.merchantId],
  );
  if (!merchant) throw new Error(`enqueueWebhook: unknown merchant ${event.merchantId}`);
  const callbackUrl = event.callbackUrl || null;
  const target = callbackUrl ?? merchant.webhook_url;
  // Section 5.4: a merchant without an API key is sent no webhooks; nor is one that switched them off.
  if (!merchant.webhooks_enabled || !merchant.has_key || !target) return null;

  const key = idempotencyKeyOf(event.event, event.subjectId);
  const inserted = await em.execute<{ id: string }[]>(
    `insert into webhook_events (id, merchant_id, event, subject_id, idempotency_key, callback_url, body, created_at)
     values (?, ?, ?, ?, ?, ?, ?, clock_timestamp())
     on conflict (merchant_id, idempotency_key) do nothing
     returning id`,
    [newEventId(), event.merchantId, event.event, event.subjectId, key, callbackUrl, buildWebhookBody(event)],
  );
  const eventId = inserted[0]?.id;
  if (!eventId) {
    // The same logical event was enqueued before (a settlement job ran twice): it is never created
    // twice; answer with its first delivery.
    const [existing] = await em.execute<{ id: string }[]>(
      `select d.id from webhook_deliveries d join webhook_events e on e.id = d.event_id
        where e.merchant_id = ? and e.idempotency_key = ? order by d.created_at, d.id limit 1`,
      [event.merchantId, key],
    );
    return existing?.id ?? null;
  }
  return createDelivery(em, { eventId, merchantId: event.merchantId, targetUrl: target });
}

/** Adds a fresh delivery of a stored event and its job (first attempt immediately); used by resends too. */
export async function createDelivery(
  em: EntityManager,
  input: { eventId: string; merchantId: string; targetUrl: string },
): Promise<string> {
  const id = newId('webhook');
  // Millisecond timestamps: exactly what a JS Date (and so a page cursor) can hold.
  await em.execute(
    `insert into webhook_deliveries (id, event_id, merchant_id, target_url, status, attempts, next_attempt_at, created_at, updated_at)
     select ?, ?, ?, ?, 'pending', 0, t.at, t.at, t.at
       from (select date_trunc('milliseconds', clock_timestamp()) as at) t`,
    [id, input.eventId, input.merchantId, input.targetUrl],
  );
  await addJob(em, DELIVER_WEBHOOK_TASK, { deliveryId: id }, { jobKey: deliveryJobKey(id) });
  await notifyDelivery(em, { id, merchantId: input.merchantId, status: 'pending' });
  return id;
}

/** NOTIFY on the caller's connection: delivered to listeners when (and only if) the transaction commits. */
export async function notifyDelivery(em: EntityManager, notice: DeliveryNotice): Promise<void> {
  await em.execute('select pg_notify(?, ?)', [DELIVERY_CHANNEL, JSON.stringify(notice)]);
}

function newEventId(): string {
  // Events are internal (operators see them); deliveries carry the `wh_` ids of D2.
  return newId('webhook').replace(/^wh_/, 'evt_');
}
