import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '../../db/orm.ts';
import { decryptSecret } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import { addJob } from '../../worker/jobs.ts';
import { ApiKey } from '../auth/auth.entity.ts';
import { DELIVER_WEBHOOK_TASK, deliveryJobKey, notifyDelivery } from './outbox.ts';
import { LEASE_MARGIN_MS, MAX_ATTEMPTS, retryDelayMs } from './schedule.ts';
import { type PostResult, postWebhook } from './sender.ts';
import { signWebhook } from './signature.ts';
import { type Resolver, resolveTarget, TargetRefused } from './ssrf.ts';
import { WebhookAttempt, WebhookDelivery, WebhookEvent } from './webhook.entity.ts';

/** What one run of the delivery task did (for logs and tests). */
export type DeliverOutcome =
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  /** Ran before the next attempt was due: re-queued for then. */
  | 'not_due'
  /** Another run holds a live lease on the delivery: re-queued for when the lease ends. */
  | 'in_flight'
  /** Already delivered or failed: nothing recorded. */
  | 'finished'
  /** A takeover after this run's lease expired owns the delivery now. */
  | 'superseded'
  | 'missing';

export interface DeliveryDeps {
  secretsKey: Buffer;
  allowPrivate: boolean;
  /** Milliseconds since the epoch; injectable so tests drive the retry schedule. */
  now: () => number;
  timeoutMs: number;
  resolve: Resolver;
  userAgent: string;
  logger: Logger;
}

const INTERRUPTED = 'interrupted: the worker stopped before the outcome was recorded';
const NO_KEY = 'no active API key to sign with (section 5.4): not sent';

interface Claimed {
  number: number;
  targetUrl: string;
  body: string;
  event: string;
  idempotencyKey: string;
  keyId: string;
  secret: string;
}

const lock = { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } as const;

/**
 * One run of `deliver_webhook`. Three steps so that no transaction is open during network I/O:
 * (1) claim: under a row lock, decide whether an attempt is due, count it, record its start and take
 * a lease; commit. (2) send, outside any transaction, bounded by the timeout. (3) record the outcome
 * and schedule the next attempt (a new job at `next_attempt_at`) in one transaction.
 *
 * Idempotent: a finished delivery is never attempted again, a live lease keeps a duplicate run out,
 * and an expired lease means the previous run died mid-attempt, so the attempt is repeated
 * (at-least-once, same `X-Webhook-Id` and `X-Idempotency-Key`).
 */
export async function deliverOnce(
  deps: DeliveryDeps,
  em: EntityManager,
  deliveryId: string,
): Promise<DeliverOutcome> {
  const claim = await em.transactional((tx) => claimAttempt(deps, tx, deliveryId));
  if (typeof claim === 'string') return claim;

  const timestamp = String(Math.floor(deps.now() / 1000));
  let result: PostResult;
  let fatal = false;
  const deadline = Date.now() + deps.timeoutMs;
  try {
    const target = await withTimeout(
      resolveTarget(claim.targetUrl, deps.allowPrivate, deps.resolve),
      deps.timeoutMs,
    );
    result = await postWebhook({
      url: target.url,
      address: target,
      body: claim.body,
      timeoutMs: Math.max(1, deadline - Date.now()),
      headers: {
        'content-type': 'application/json',
        'user-agent': deps.userAgent,
        'x-webhook-event': claim.event,
        'x-webhook-id': deliveryId,
        'x-idempotency-key': claim.idempotencyKey,
        'x-webhook-timestamp': timestamp,
        'x-webhook-signature': signWebhook(claim.secret, timestamp, claim.body),
        'x-webhook-key-id': claim.keyId,
      },
    });
  } catch (error) {
    fatal = error instanceof TargetRefused;
    result = { error: (error as Error).message, latencyMs: 0 };
  }
  return em.transactional((tx) => recordOutcome(deps, tx, deliveryId, claim.number, result, fatal));
}

async function claimAttempt(
  deps: DeliveryDeps,
  tx: EntityManager,
  id: string,
): Promise<Claimed | DeliverOutcome> {
  const d = await tx.findOne(WebhookDelivery, { id }, lock);
  if (!d) return 'missing';
  if (d.status === 'delivered' || d.status === 'failed') return 'finished';
  const now = new Date(deps.now());
  if (d.status === 'delivering') {
    if (d.leaseUntil && d.leaseUntil > now) {
      await requeue(tx, id, d.leaseUntil);
      return 'in_flight';
    }
    // The run holding the lease died: its attempt counts, and the next one goes out now.
    const open = await tx.findOne(WebhookAttempt, { delivery: id, number: d.attempts });
    if (open && open.statusCode == null && open.error == null) open.error = INTERRUPTED;
    deps.logger.warn('webhook attempt interrupted; retrying', { deliveryId: id, attempt: d.attempts });
    if (d.attempts >= MAX_ATTEMPTS) return finish(tx, d, 'failed', { lastError: INTERRUPTED }, now);
  } else if (d.attempts > 0 && d.nextAttemptAt && d.nextAttemptAt > now) {
    await requeue(tx, id, d.nextAttemptAt);
    return 'not_due';
  }

  const event = await tx.findOneOrFail(WebhookEvent, { id: d.event.id });
  const key = await tx.findOne(
    ApiKey,
    { merchant: d.merchant.id, $or: [{ revokedAt: null }, { revokedAt: { $gt: now } }] },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  d.attempts += 1;
  const attempt = tx.create(WebhookAttempt, { delivery: d, number: d.attempts, startedAt: now });
  if (!key) {
    attempt.error = NO_KEY;
    return finish(tx, d, 'failed', { lastError: NO_KEY }, now);
  }
  d.status = 'delivering';
  d.nextAttemptAt = null;
  d.leaseUntil = new Date(now.getTime() + deps.timeoutMs + LEASE_MARGIN_MS);
  await tx.flush();
  await notifyDelivery(tx, { id, merchantId: d.merchant.id, status: d.status });
  return {
    number: d.attempts,
    targetUrl: d.targetUrl,
    body: event.body,
    event: event.event,
    idempotencyKey: event.idempotencyKey,
    keyId: key.id,
    secret: decryptSecret(deps.secretsKey, key.secretSealed),
  };
}

async function recordOutcome(
  deps: DeliveryDeps,
  tx: EntityManager,
  id: string,
  number: number,
  result: PostResult,
  fatal: boolean,
): Promise<DeliverOutcome> {
  const d = await tx.findOne(WebhookDelivery, { id }, lock);
  const attempt = await tx.findOne(WebhookAttempt, { delivery: id, number }, { refresh: true });
  if (attempt) {
    attempt.statusCode = result.statusCode ?? null;
    attempt.latencyMs = result.latencyMs;
    attempt.responseBody = result.responseBody ?? null;
    attempt.error = result.error ?? null;
  }
  if (!d || d.status !== 'delivering' || d.attempts !== number) {
    await tx.flush();
    return 'superseded';
  }
  const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  const fields = {
    lastStatusCode: result.statusCode ?? null,
    lastError: ok ? null : (result.error ?? `HTTP ${result.statusCode}`),
  };
  const now = new Date(deps.now());
  if (ok) return finish(tx, d, 'delivered', fields, now);
  const delay = fatal ? null : retryDelayMs(number);
  if (delay === null) return finish(tx, d, 'failed', fields, now);
  const next = new Date(now.getTime() + delay);
  Object.assign(d, fields, { status: 'pending', nextAttemptAt: next, leaseUntil: null });
  await tx.flush();
  await requeue(tx, id, next);
  await notifyDelivery(tx, { id, merchantId: d.merchant.id, status: d.status });
  return 'retry_scheduled';
}

async function finish(
  tx: EntityManager,
  d: WebhookDelivery,
  status: 'delivered' | 'failed',
  fields: { lastStatusCode?: number | null; lastError: string | null },
  now: Date,
): Promise<DeliverOutcome> {
  Object.assign(d, fields, { status, nextAttemptAt: null, leaseUntil: null });
  if (status === 'delivered') d.deliveredAt = now;
  await tx.flush();
  await notifyDelivery(tx, { id: d.id, merchantId: d.merchant.id, status });
  return status;
}

/** (Re)schedules the delivery's job; a running job keeps going and a new one takes the key. */
export function requeue(em: EntityManager, deliveryId: string, runAt?: Date): Promise<void> {
  return addJob(em, DELIVER_WEBHOOK_TASK, { deliveryId }, { jobKey: deliveryJobKey(deliveryId), runAt });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS resolution timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
