import type { EntityManager } from '../../db/orm.ts';
import { publish, topic } from '../../db/pubsub.ts';
import { enqueueWebhooks, type WebhookEvent } from '../webhook/outbox.ts';
import type { OrderStatus, SessionView, Step } from './session.entity.ts';
import { STEP_STATUS } from './session.machine.ts';

/**
 * The one way a session changes: `transitionSessions` checks each change against the order status
 * table (section 3.1), writes the row guarded by the version it was computed from, writes the
 * webhook outbox row of a settled order and publishes the change, all in the caller's transaction.
 * A change computed from a version that is no longer current writes nothing and is reported as not
 * applied, so the caller recomputes it from the fresh row (a player action) or on its next pass (the
 * chain follower).
 */

/** Published on every committed change of a session: its id and merchant (subscribers read the row). */
export const sessionChanged = topic('session_changed', ['id', 'merchantId']);

type WebhookName = 'payment.completed' | 'payment.failed';

/** Section 3.1 as data: what each kind of change may leave and reach, and the webhook it sends. */
export const SESSION_TRANSITIONS = {
  /** A player action moved the step (section 3.2); the order stays open. */
  step: { from: ['pending', 'processing'], to: ['pending', 'processing'] },
  /** A hosted create (re)issued the link: token hash, return_url, language, link expiry (D12). */
  hosted_link: { from: ['pending'], to: ['pending'] },
  /** The follower found the payment on chain: waiting for its confirmations. */
  payment_found: { from: ['pending', 'processing'], to: ['processing'] },
  /** The payment's block left the canonical chain: waiting again. */
  payment_lost: { from: ['processing'], to: ['pending', 'processing'] },
  /** The payment reached its confirmation depth. */
  completed: { from: ['processing'], to: ['completed'], event: 'payment.completed' },
  /** Reverted, never mined, or expired unpaid. */
  failed: { from: ['pending', 'processing'], to: ['failed'], event: 'payment.failed' },
} as const satisfies Record<
  string,
  { from: readonly OrderStatus[]; to: readonly OrderStatus[]; event?: WebhookName }
>;
export type SessionTransition = keyof typeof SESSION_TRANSITIONS;

/** What a transition reads of the session: the guard, and the fields of its webhook. */
export interface SessionSnapshot {
  id: string;
  merchantId: string;
  version: number;
  status: OrderStatus;
  step: Step;
  network: string | null;
  token: string | null;
  amount: string | null;
  playerId: string | null;
  externalOrderId: string | null;
  callbackUrl: string | null;
  orderRef: string;
}

/** The columns a change may write. */
export interface SessionFields {
  step: Step;
  status: OrderStatus;
  network: string | null;
  token: string | null;
  amount: string | null;
  wallet: string | null;
  payee: string | null;
  deadline: number | null;
  approvalTxHash: string | null;
  reportedTxHash: string | null;
  reportedAt: Date | null;
  paymentId: number | null;
  view: SessionView | null;
  failureReason: string | null;
  settledAt: Date | null;
  language: string;
  hostedTokenHash: string | null;
  returnUrl: string | null;
  hostedExpiresAt: Date | null;
}

const COLUMNS: Record<keyof SessionFields, { column: string; type: string }> = {
  step: { column: 'step', type: 'text' },
  status: { column: 'status', type: 'text' },
  network: { column: 'network', type: 'text' },
  token: { column: 'token', type: 'text' },
  amount: { column: 'amount', type: 'text' },
  wallet: { column: 'wallet', type: 'text' },
  payee: { column: 'payee', type: 'text' },
  deadline: { column: 'deadline', type: 'bigint' },
  approvalTxHash: { column: 'approval_tx_hash', type: 'text' },
  reportedTxHash: { column: 'reported_tx_hash', type: 'text' },
  reportedAt: { column: 'reported_at', type: 'timestamptz' },
  paymentId: { column: 'payment_id', type: 'bigint' },
  view: { column: 'view', type: 'jsonb' },
  failureReason: { column: 'failure_reason', type: 'text' },
  settledAt: { column: 'settled_at', type: 'timestamptz' },
  language: { column: 'language', type: 'text' },
  hostedTokenHash: { column: 'hosted_token_hash', type: 'text' },
  returnUrl: { column: 'return_url', type: 'text' },
  hostedExpiresAt: { column: 'hosted_expires_at', type: 'timestamptz' },
};

export interface SessionChange {
  kind: SessionTransition;
  session: SessionSnapshot;
  set: Partial<SessionFields>;
  /** `tx_hash` of the webhook (the payment, or the reverted transaction). */
  txHash?: string | null;
}

/**
 * Applies changes in the caller's transaction: one UPDATE per distinct set of columns, however many
 * sessions. Returns the ids whose change was applied (a stale version applies nothing).
 */
export async function transitionSessions(
  em: EntityManager,
  changes: readonly SessionChange[],
): Promise<Set<string>> {
  for (const change of changes) check(change);
  const applied = new Set<string>();
  const groups = new Map<string, SessionChange[]>();
  for (const change of changes) {
    const key = Object.keys(change.set).sort().join(',');
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  for (const group of groups.values()) {
    const fields = Object.keys(group[0]!.set) as (keyof SessionFields)[];
    const rows = group.map((c) => ({ id: c.session.id, version: c.session.version, ...jsonFields(c.set) }));
    const setSql = fields.map((f) => `${COLUMNS[f].column} = v.${COLUMNS[f].column}`).join(', ');
    const typesSql = fields.map((f) => `"${f}" ${COLUMNS[f].type === 'jsonb' ? 'jsonb' : 'text'}`).join(', ');
    const selectSql = fields.map((f) => `v."${f}"::${COLUMNS[f].type} as ${COLUMNS[f].column}`).join(', ');
    const updated = await em.execute<{ id: string }[]>(
      `update sessions s set ${setSql}${fields.length ? ', ' : ''}version = s.version + 1, updated_at = now()
         from (select v.id, v.version${fields.length ? ', ' : ''}${selectSql}
                 from jsonb_to_recordset(?::jsonb) as v(id text, version int${fields.length ? ', ' : ''}${typesSql})) v
        where s.id = v.id and s.version = v.version
        returning s.id`,
      [JSON.stringify(rows)],
    );
    for (const row of updated) applied.add(row.id);
  }
  const done = changes.filter((c) => applied.has(c.session.id));
  await enqueueWebhooks(
    em,
    done.flatMap((change) => {
      const event = (SESSION_TRANSITIONS[change.kind] as { event?: WebhookName }).event;
      return event ? [webhookOf(change, event)] : [];
    }),
  );
  await publish(
    em,
    sessionChanged,
    done.map((c) => ({ id: c.session.id, merchantId: c.session.merchantId })),
  );
  return applied;
}

function check(change: SessionChange): void {
  const rule = SESSION_TRANSITIONS[change.kind];
  const status = change.set.status ?? change.session.status;
  const step = change.set.step ?? change.session.step;
  const allowed =
    (rule.from as readonly string[]).includes(change.session.status) &&
    (rule.to as readonly string[]).includes(status) &&
    STEP_STATUS[step] === status;
  if (!allowed) {
    throw new Error(
      `session ${change.session.id}: ${change.kind} cannot move ${change.session.status}/${change.session.step} to ${status}/${step}`,
    );
  }
}

/** Values as JSON for jsonb_to_recordset: dates as ISO strings, views as JSON text. */
function jsonFields(set: Partial<SessionFields>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(set)) {
    out[key] = value instanceof Date ? value.toISOString() : value === undefined ? null : value;
  }
  return out;
}

/** The payment.* webhook of a settled session (section 6.5). */
function webhookOf(change: SessionChange, event: WebhookName): WebhookEvent {
  const s = change.session;
  return {
    merchantId: s.merchantId,
    event,
    subjectId: s.id,
    callbackUrl: s.callbackUrl,
    occurredAt: change.set.settledAt ?? new Date(),
    body: {
      session_id: s.id,
      merchant_id: s.merchantId,
      player_id: s.playerId,
      external_order_id: s.externalOrderId,
      network: change.set.network ?? s.network,
      token: change.set.token ?? s.token,
      amount: change.set.amount ?? s.amount,
      status: change.set.status,
      tx_hash: change.txHash,
      order_ref: s.orderRef,
    },
  };
}
