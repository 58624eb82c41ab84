import type { EntityManager } from '../../db/orm.ts';
import { APPROVAL_BUILD_TTL_DAYS } from '../approval/approval.built.ts';

/**
 * Retention: what the service deletes once it is old and can no longer matter, and nothing else.
 *
 * - Sessions that ended `failed` without a payment (expired, abandoned, a reported transaction that
 *   never paid), untouched for the session retention period, and with no ledger row carrying their
 *   order reference (a late transfer to the router is kept attributable). A completed session, or any
 *   session with a payment, is a money movement of the settlement report (its opening positions sum
 *   every movement since the beginning) and is never deleted; neither is a pending or processing one.
 * - Webhook events whose every delivery ended (`delivered` or `failed`), created before the webhook
 *   retention period, with their deliveries and attempts (the foreign keys cascade). An event with a
 *   delivery still pending or in flight is kept, however old.
 *
 * - Approval builds past the days they can be broadcast ({@link APPROVAL_BUILD_TTL_DAYS}), whatever
 *   the settings: an expired build is refused anyway, so it can no longer matter.
 *
 * Deletes go in batches of {@link RETENTION_BATCH} rows, each its own statement, so a first run on a
 * large table never holds locks for long. Idempotent: a second run deletes nothing more.
 */

/** Rows deleted per statement. */
export const RETENTION_BATCH = 1_000;

export interface RetentionSettings {
  /** Days a failed, never-paid session is kept; 0 keeps them forever. */
  sessionRetentionDays: number;
  /** Days a webhook event whose deliveries all ended is kept; 0 keeps them forever. */
  webhookRetentionDays: number;
}

export interface RetentionResult {
  sessions: number;
  webhookEvents: number;
  approvalBuilds: number;
}

const DAY_MS = 86_400_000;

/** Deletes the failed, never-paid sessions untouched since before `cutoff`; returns how many. */
export async function pruneSessions(em: EntityManager, cutoff: Date): Promise<number> {
  return batched(
    em,
    `delete from sessions where id in (
       select s.id from sessions s
        where s.status = 'failed' and s.payment_id is null and s.updated_at < ?
          and not exists (select 1 from payments p where p.order_ref = s.order_ref)
        limit ${RETENTION_BATCH})`,
    [cutoff],
  );
}

/** Deletes webhook events created before `cutoff` whose every delivery ended; returns how many. */
export async function pruneWebhookEvents(em: EntityManager, cutoff: Date): Promise<number> {
  return batched(
    em,
    `delete from webhook_events where id in (
       select e.id from webhook_events e
        where e.created_at < ?
          and not exists (select 1 from webhook_deliveries d
                           where d.event_id = e.id and d.status not in ('delivered', 'failed'))
        limit ${RETENTION_BATCH})`,
    [cutoff],
  );
}

/** Deletes the approval builds made before `cutoff`; returns how many. */
export async function pruneApprovalBuilds(em: EntityManager, cutoff: Date): Promise<number> {
  return batched(
    em,
    `delete from approval_builds where id in (
       select id from approval_builds where created_at < ? limit ${RETENTION_BATCH})`,
    [cutoff],
  );
}

/** One retention pass at `now` under `settings`. */
export async function applyRetention(
  em: EntityManager,
  settings: RetentionSettings,
  now: Date = new Date(),
): Promise<RetentionResult> {
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  return {
    sessions: settings.sessionRetentionDays
      ? await pruneSessions(em, before(settings.sessionRetentionDays))
      : 0,
    webhookEvents: settings.webhookRetentionDays
      ? await pruneWebhookEvents(em, before(settings.webhookRetentionDays))
      : 0,
    approvalBuilds: await pruneApprovalBuilds(em, before(APPROVAL_BUILD_TTL_DAYS)),
  };
}

/** Runs a `delete … limit` statement until it deletes fewer than a batch; the total. */
async function batched(em: EntityManager, sql: string, params: unknown[]): Promise<number> {
  let total = 0;
  for (;;) {
    const n = (await em.execute<{ affectedRows: number }>(sql, params, 'run')).affectedRows;
    total += n;
    if (n < RETENTION_BATCH) return total;
  }
}
