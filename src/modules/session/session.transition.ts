import {
  col,
  defineAggregate,
  type FieldsOf,
  type OnStale,
  type TransitionResult,
  type TransitionTable,
} from '../../db/aggregate.ts';
import type { EntityManager } from '../../db/orm.ts';
import { topic } from '../../db/topic.ts';
import { enqueueWebhooks, type WebhookEvent } from '../webhook/outbox.ts';
import type { OrderStatus, SessionView, Step } from './session.entity.ts';
import { recordHistory, type SessionBy } from './session.history.ts';
import { STEP_STATUS } from './session.machine.ts';

/**
 * The one way a session changes: `transitionSessions` checks each change against the order status
 * table (section 3.1), writes the row guarded by the version it was computed from, writes the
 * webhook outbox row of a settled order and the session's history row (session.history.ts), and
 * publishes the change, all in the caller's transaction.
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

/** The columns a change may write, and (derived from them) the fields of a change. */
const COLUMNS = {
  step: col.text<Step>('step'),
  status: col.text<OrderStatus>('status'),
  network: col.text('network'),
  token: col.text('token'),
  amount: col.text('amount'),
  wallet: col.text('wallet'),
  walletBlock: col.bigint('wallet_block'),
  payee: col.text('payee'),
  deadline: col.bigint('deadline'),
  approvalTxHash: col.text('approval_tx_hash'),
  reportedTxHash: col.text('reported_tx_hash'),
  reportedAt: col.timestamptz('reported_at'),
  paymentId: col.bigint('payment_id'),
  view: col.jsonb<SessionView | null>('view'),
  failureReason: col.text('failure_reason'),
  settledAt: col.timestamptz('settled_at'),
  language: col.text<string>('language'),
  hostedTokenHash: col.text('hosted_token_hash'),
  returnUrl: col.text('return_url'),
  hostedExpiresAt: col.timestamptz('hosted_expires_at'),
};
export type SessionFields = FieldsOf<typeof COLUMNS>;

export interface SessionChange {
  kind: SessionTransition;
  session: SessionSnapshot;
  set: Partial<SessionFields>;
  /** `tx_hash` of the webhook (the payment, or the reverted transaction); the history's too. */
  txHash?: string | null;
  /**
   * Who made it, for the history. By default, by its kind: a step the player, a hosted link the
   * merchant's API, a failure for want of payment the expiry, anything else the chain follower.
   */
  by?: SessionBy;
}

const sessions = defineAggregate({
  table: 'sessions',
  label: 'session',
  columns: COLUMNS,
  transitions: SESSION_TRANSITIONS as TransitionTable<OrderStatus, WebhookName>,
  subject: (change: SessionChange) => change.session,
  kind: (change) => change.kind,
  set: (change) => change.set,
  check(change, status) {
    const step = change.set.step ?? change.session.step;
    if (STEP_STATUS[step] !== status)
      throw new Error(`session ${change.session.id}: step ${step} does not go with status ${status}`);
  },
  webhooks: { of: webhookOf, enqueue: enqueueWebhooks },
  history: (em, applied) =>
    recordHistory(
      em,
      applied.map(({ change, from, to }) => ({
        sessionId: change.session.id,
        version: change.session.version + 1,
        kind: change.kind,
        by: change.by ?? defaultCause(change),
        fromStep: change.session.step,
        toStep: change.set.step ?? change.session.step,
        fromStatus: from,
        toStatus: to,
        failureReason: change.set.failureReason,
        txHash: change.txHash ?? change.set.reportedTxHash ?? change.set.approvalTxHash,
      })),
    ),
  topic: sessionChanged,
  notice: (c) => ({ id: c.session.id, merchantId: c.session.merchantId }),
});

/**
 * Applies changes in the caller's transaction: one UPDATE per distinct set of columns, however many
 * sessions. A change from a stale version applies nothing; the caller says what that means
 * (`onStale`): `raise` rolls its transaction back, `report` hands the stale changes back to be decided
 * again from a fresh read (src/db/fresh-reads.ts) or answered to the client.
 */
export function transitionSessions(
  em: EntityManager,
  changes: readonly SessionChange[],
  onStale: OnStale,
): Promise<TransitionResult<SessionChange>> {
  return sessions.apply(em, changes, onStale);
}

/**
 * Applies, per session, transitions that follow one another (a payment found already at its
 * confirmation depth: `payment_found`, then `completed`) as one write of the row, each step checked
 * against the table and recorded in the history as it would be applied alone (src/db/aggregate.ts).
 */
export function transitionSessionSteps(
  em: EntityManager,
  steps: readonly (readonly SessionChange[])[],
  onStale: OnStale,
): Promise<TransitionResult<SessionChange>> {
  return sessions.applySteps(em, steps, onStale);
}

/** Failure reasons of a session whose time ran out (session.watch.ts), as opposed to the chain's verdicts. */
const EXPIRY_REASONS = new Set(['expired', 'no_payment']);

/** The cause of a change whose maker did not name itself (see `SessionChange.by`). */
function defaultCause(change: SessionChange): SessionBy {
  if (change.kind === 'step') return { cause: 'player' };
  if (change.kind === 'hosted_link') return { cause: 'merchant_api' };
  const reason = change.set.failureReason;
  return { cause: change.kind === 'failed' && reason && EXPIRY_REASONS.has(reason) ? 'expiry' : 'chain' };
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
