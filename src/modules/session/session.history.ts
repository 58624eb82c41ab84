import { defineEntity, p } from '@mikro-orm/core';
import { columnArrays, executeBound } from '../../db/bulk.ts';
import type { EntityManager } from '../../db/orm.ts';
import { ORDER_STATUSES, type OrderStatus, Session, STEPS, type Step } from './session.entity.ts';

/**
 * A session's history: one row per committed change (and one for its creation), written in the same
 * transaction as the change by the transition engine (session.transition.ts), so the history cannot
 * say anything the session did not do. The row of a change is keyed by the version the change
 * produced: the version guard that lets one change of a version through lets one history row through.
 */

/** What made a change: whose call, or which of the service's own processes. */
export const SESSION_CAUSES = [
  /** The merchant's signed REST API (its backend relaying the player's choices, or a hosted create). */
  'merchant_api',
  /** The player on the hosted payment page. */
  'player',
  /** The chain follower: a payment found, confirmed, lost in a reorganisation, reverted or never mined. */
  'chain',
  /** The session's time ran out unpaid. */
  'expiry',
  /** An operator through GraphQL (the console, a script): `actor` is the operator token's id. */
  'operator',
] as const;
export type SessionCause = (typeof SESSION_CAUSES)[number];

/** Who made a change: the cause, and the API key or operator token behind it (when a caller did). */
export interface SessionBy {
  cause: SessionCause;
  actor?: string | null;
}

export const SessionHistorySchema = defineEntity({
  name: 'SessionHistory',
  tableName: 'session_history',
  properties: {
    session: () => p.manyToOne(Session).primary().deleteRule('cascade'),
    /** The session's version after the change (0: its creation); the order of the history. */
    version: p.integer().primary(),
    /** `created`, or the transition kind (`step`, `payment_found`, `completed`, …). */
    kind: p.string().length(32),
    cause: p.enum(SESSION_CAUSES),
    /** The merchant API key or operator token that made the change; null for the service's own processes. */
    actor: p.string().length(64).nullable(),
    fromStep: p.enum(STEPS).nullable(),
    toStep: p.enum(STEPS),
    fromStatus: p.enum(ORDER_STATUSES).nullable(),
    toStatus: p.enum(ORDER_STATUSES),
    failureReason: p.string().length(64).nullable(),
    /** The transaction the change is about: the approval or payment reported, the payment found. */
    txHash: p.string().length(66).nullable(),
    /** The commit's clock (the database's `now()`), like the session's `updated_at`. */
    at: p.datetime(),
  },
});
export class SessionHistory extends SessionHistorySchema.class {}
SessionHistorySchema.setClass(SessionHistory);

/** One history row as written. */
export interface HistoryEntry {
  sessionId: string;
  version: number;
  kind: string;
  by: SessionBy;
  fromStep: Step | null;
  toStep: Step;
  fromStatus: OrderStatus | null;
  toStatus: OrderStatus;
  failureReason?: string | null;
  txHash?: string | null;
}

/** The input columns of {@link recordHistory}'s statement, in the order of its `unnest` parameters. */
const HISTORY_COLUMNS = [
  'session_id',
  'version',
  'kind',
  'cause',
  'actor',
  'from_step',
  'to_step',
  'from_status',
  'to_status',
  'failure_reason',
  'tx_hash',
] as const;

/**
 * Writes history rows in `em`'s transaction, all in one statement. The rows go as one array per
 * column (`unnest`): PostgreSQL reads a backfill's thousands of rows from arrays in about half the
 * time it takes to take them out of a JSON document, which it parses object by object.
 */
export async function recordHistory(em: EntityManager, entries: readonly HistoryEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((e) => ({
    session_id: e.sessionId,
    version: e.version,
    kind: e.kind,
    cause: e.by.cause,
    actor: e.by.actor ?? null,
    from_step: e.fromStep,
    to_step: e.toStep,
    from_status: e.fromStatus,
    to_status: e.toStatus,
    failure_reason: e.failureReason ?? null,
    tx_hash: e.txHash?.toLowerCase() ?? null,
  }));
  await executeBound(
    em,
    `insert into session_history (session_id, version, kind, cause, actor, from_step, to_step, from_status,
                                  to_status, failure_reason, tx_hash, at)
     select v.session_id, v.version, v.kind, v.cause, v.actor, v.from_step, v.to_step, v.from_status,
            v.to_status, v.failure_reason, v.tx_hash, now()
       from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                   $9::text[], $10::text[], $11::text[])
            as v(session_id, version, kind, cause, actor, from_step, to_step, from_status, to_status,
                 failure_reason, tx_hash)`,
    columnArrays(rows, HISTORY_COLUMNS),
  );
}

/** A session's history, oldest first. */
export function historyOf(em: EntityManager, sessionId: string): Promise<SessionHistory[]> {
  return em.find(SessionHistory, { session: sessionId }, { orderBy: { version: 'asc' } });
}
