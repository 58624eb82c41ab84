import type { EntityManager } from '../../db/orm.ts';
import { decryptSecret } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import { type Claimed, claimDue, triage } from './claim.ts';
import { DELIVER_WEBHOOK_TASK, DELIVERY_CHANNEL, deliveryJobKey, NOTICE_JSON } from './outbox.ts';
import { LEASE_MARGIN_MS, retryDelayMs } from './schedule.ts';
import { type PostResult, postWebhook } from './sender.ts';
import { signWebhook } from './signature.ts';
import { type Resolver, resolveTarget, TargetRefused } from './ssrf.ts';

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

const NO_KEY = 'no active API key to sign with (webhooks are signed with the merchant’s key): not sent';

/**
 * One run of `deliver_webhook`: (1) claim the attempt and take a lease (claim.ts), committed at once;
 * (2) resolve, vet and POST outside any transaction, bounded by the timeout; (3) record the outcome
 * and, on failure, schedule the next attempt as a new job at `next_attempt_at`, in one statement.
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
  // Twice at most: triage may turn an orphaned attempt into a due one, which is then claimed.
  for (let round = 0; round < 2; round++) {
    const now = new Date(deps.now());
    const claim = await claimDue(
      em,
      deliveryId,
      now,
      new Date(now.getTime() + deps.timeoutMs + LEASE_MARGIN_MS),
    );
    if (claim) return attempt(deps, em, deliveryId, claim);
    const state = await triage(em, deliveryId, now, deps.logger);
    if (state !== 'due') return state;
  }
  throw new Error(`webhook ${deliveryId}: could not claim a due attempt`);
}

async function attempt(
  deps: DeliveryDeps,
  em: EntityManager,
  id: string,
  claim: Claimed,
): Promise<DeliverOutcome> {
  if (!claim.keyId || !claim.secretSealed) return record(deps, em, id, claim.number, { error: NO_KEY }, true);
  const timestamp = String(Math.floor(deps.now() / 1000));
  const deadline = Date.now() + deps.timeoutMs;
  try {
    const target = await withTimeout(
      resolveTarget(claim.targetUrl, deps.allowPrivate, deps.resolve),
      deps.timeoutMs,
    );
    const result = await postWebhook({
      url: target.url,
      address: target,
      body: claim.body,
      timeoutMs: deps.timeoutMs,
      remainingMs: Math.max(1, deadline - Date.now()),
      headers: {
        'content-type': 'application/json',
        'user-agent': deps.userAgent,
        'x-webhook-event': claim.event,
        'x-webhook-id': id,
        'x-idempotency-key': claim.idempotencyKey,
        'x-webhook-timestamp': timestamp,
        'x-webhook-signature': signWebhook(
          decryptSecret(deps.secretsKey, claim.secretSealed),
          timestamp,
          claim.body,
        ),
        'x-webhook-key-id': claim.keyId,
      },
    });
    return record(deps, em, id, claim.number, result, false);
  } catch (error) {
    // A refused target is final; a name that does not resolve is retried like a refused connection.
    const fatal = error instanceof TargetRefused;
    return record(deps, em, id, claim.number, { error: (error as Error).message, latencyMs: 0 }, fatal);
  }
}

/**
 * The attempt's outcome and the delivery's next state in one statement (so one round trip): the
 * attempt row is always updated; the delivery only if this run still owns it (same attempt number,
 * still `delivering`); a retry re-adds the job for `next_attempt_at`; the change is announced.
 */
const RECORD_SQL = `
with outcome as (
  update webhook_attempts set status_code = ?, latency_ms = ?, response_body = ?, error = ?
   where delivery_id = ? and number = ?
), d as (
  update webhook_deliveries
     set status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?::timestamptz,
         lease_until = null, delivered_at = ?::timestamptz, updated_at = ?::timestamptz
   where id = ? and status = 'delivering' and attempts = ?
  returning *
)
select d.status,
       pg_notify(?, ${NOTICE_JSON}),
       case when d.status = 'pending' then (graphile_worker.add_job(?, json_build_object('deliveryId', d.id),
         job_key => ?, run_at => ?::timestamptz)).id end as job_id
  from d`;

async function record(
  deps: DeliveryDeps,
  em: EntityManager,
  id: string,
  number: number,
  result: Partial<PostResult>,
  fatal: boolean,
): Promise<DeliverOutcome> {
  const now = new Date(deps.now());
  const code = result.statusCode ?? null;
  const ok = code !== null && code >= 200 && code < 300;
  const delay = ok || fatal ? null : retryDelayMs(number);
  const status = ok ? 'delivered' : delay === null ? 'failed' : 'pending';
  const next = delay === null ? null : new Date(now.getTime() + delay).toISOString();
  const rows = await em.execute<{ status: string }[]>(RECORD_SQL, [
    code,
    result.latencyMs ?? null,
    result.responseBody ?? null,
    result.error ?? null,
    id,
    number,
    status,
    code,
    ok ? null : (result.error ?? `HTTP ${code}`),
    next,
    ok ? now.toISOString() : null,
    now.toISOString(),
    id,
    number,
    DELIVERY_CHANNEL,
    DELIVER_WEBHOOK_TASK,
    deliveryJobKey(id),
    next,
  ]);
  if (rows.length === 0) return 'superseded';
  return status === 'pending' ? 'retry_scheduled' : (status as 'delivered' | 'failed');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`DNS resolution timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
