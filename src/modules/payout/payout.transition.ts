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
import type { FailureReason, PayoutStatus } from './payout.entity.ts';

/**
 * The one way a payout changes (section 3.4, D7, D14): `transitionPayouts` checks each change against
 * the table below, writes the row guarded by the version it was computed from, writes the webhook
 * outbox row of a settled payout and publishes the change, all in the caller's transaction. A change
 * computed from a stale version writes nothing and is reported as not applied.
 */

/**
 * Published on every committed change of a payout: its id, merchant and batch ('' for a single payout);
 * subscribers read the row.
 */
export const payoutChanged = topic('payout_changed', ['id', 'merchantId', 'batchId']);

type WebhookName = 'payout.completed' | 'payout.failed';

/** Section 3.4 as data: what each kind of change may leave and reach, and the webhook it sends. */
export const PAYOUT_TRANSITIONS = {
  /** A valid signature arrived before the deadline; the relay is queued in the same transaction. */
  authorized: { from: ['pending'], to: ['authorized'] },
  /** A relay transaction was broadcast (or replaced): `tx_hash` is the latest one. */
  submitted: { from: ['authorized', 'submitted'], to: ['submitted'] },
  /**
   * The router's `PayoutExecuted` (or `ItemPaid`) was seen in a block: any transaction executing the
   * signed order counts, also one the merchant sent itself without authorizing through the service.
   */
  executed: { from: ['pending', 'authorized', 'submitted'], to: ['submitted'] },
  /** The execution's block left the canonical chain: waiting for it again. */
  unexecuted: { from: ['submitted'], to: ['submitted'] },
  /** The execution reached the network's confirmation depth. */
  completed: { from: ['submitted'], to: ['completed'], event: 'payout.completed' },
  /** Expired unsigned, or the order can no longer execute (its deadline passed on chain unused). */
  failed: { from: ['pending', 'authorized', 'submitted'], to: ['failed'], event: 'payout.failed' },
  /** A note for operators (why the relay waits); the status does not move. */
  noted: { from: ['pending', 'authorized', 'submitted'], to: ['pending', 'authorized', 'submitted'] },
} as const satisfies Record<
  string,
  { from: readonly PayoutStatus[]; to: readonly PayoutStatus[]; event?: WebhookName }
>;
export type PayoutTransition = keyof typeof PAYOUT_TRANSITIONS;

/** What a transition reads of the payout: the guard, and the fields of its webhook (section 6.5). */
export interface PayoutSnapshot {
  id: string;
  merchantId: string;
  version: number;
  status: PayoutStatus;
  externalId: string | null;
  batchId: string | null;
  batchIndex: number | null;
  network: string;
  token: string;
  amount: string;
  recipient: string;
  callbackUrl: string | null;
  txHash: string | null;
}

/** The columns a change may write, and (derived from them) the fields of a change. */
const COLUMNS = {
  status: col.text<PayoutStatus>('status'),
  failureReason: col.text<FailureReason | null>('failure_reason'),
  signature: col.text('signature'),
  txHash: col.text('tx_hash'),
  executedBlock: col.bigint('executed_block'),
  executedBlockHash: col.text('executed_block_hash'),
  relayNote: col.text('relay_note'),
  lastRelayReason: col.text<FailureReason | null>('last_relay_reason'),
  conflictBlock: col.bigint('conflict_block'),
  authorizedAt: col.timestamptz('authorized_at'),
  settledAt: col.timestamptz('settled_at'),
};
export type PayoutFields = FieldsOf<typeof COLUMNS>;

export interface PayoutChange {
  kind: PayoutTransition;
  payout: PayoutSnapshot;
  set: Partial<PayoutFields>;
}

const payouts = defineAggregate({
  table: 'payouts',
  label: 'payout',
  columns: COLUMNS,
  transitions: PAYOUT_TRANSITIONS as TransitionTable<PayoutStatus, WebhookName>,
  subject: (change: PayoutChange) => change.payout,
  kind: (change) => change.kind,
  set: (change) => change.set,
  check(change, to) {
    if (to === 'failed' && !change.set.failureReason)
      throw new Error(`payout ${change.payout.id}: failing needs a failure_reason`);
  },
  webhooks: { of: webhookOf, enqueue: enqueueWebhooks },
  topic: payoutChanged,
  notice: (c) => ({ id: c.payout.id, merchantId: c.payout.merchantId, batchId: c.payout.batchId ?? '' }),
});

/**
 * Applies changes in the caller's transaction: one UPDATE per distinct set of columns, however many
 * payouts (a batch settles up to 100 items at once). A change computed from a stale version is raised
 * (`onStale: 'raise'`, rolling the caller's transaction back) or reported back (`'report'`) for the
 * caller to retry from a fresh read; it is never silently dropped (src/db/aggregate.ts).
 */
export function transitionPayouts(
  em: EntityManager,
  changes: readonly PayoutChange[],
  onStale: OnStale,
): Promise<TransitionResult<PayoutChange>> {
  return payouts.apply(em, changes, onStale);
}

/** The payout.* webhook of a settled payout (section 6.5). */
function webhookOf(change: PayoutChange, event: WebhookName): WebhookEvent {
  const p = change.payout;
  return {
    merchantId: p.merchantId,
    event,
    subjectId: p.id,
    callbackUrl: p.callbackUrl,
    occurredAt: change.set.settledAt ?? new Date(),
    body: {
      payout_id: p.id,
      merchant_id: p.merchantId,
      status: change.set.status,
      external_id: p.externalId,
      network: p.network,
      token: p.token,
      amount: p.amount,
      recipient: p.recipient,
      tx_hash: change.set.txHash ?? p.txHash,
      failure_reason: change.set.failureReason,
      batch_id: p.batchId,
      batch_index: p.batchIndex,
    },
  };
}

/** The snapshot of a payout row (entity or raw columns). */
export function payoutSnapshot(p: {
  id: string;
  merchant: { id: string } | string;
  version: number;
  status: PayoutStatus;
  externalId?: string | null;
  batchId?: string | null;
  batchIndex?: number | null;
  network: string;
  token: string;
  amount: string;
  recipient: string;
  callbackUrl?: string | null;
  txHash?: string | null;
}): PayoutSnapshot {
  return {
    id: p.id,
    merchantId: typeof p.merchant === 'string' ? p.merchant : p.merchant.id,
    version: p.version,
    status: p.status,
    externalId: p.externalId ?? null,
    batchId: p.batchId ?? null,
    batchIndex: p.batchIndex ?? null,
    network: p.network,
    token: p.token,
    amount: p.amount,
    recipient: p.recipient,
    callbackUrl: p.callbackUrl ?? null,
    txHash: p.txHash ?? null,
  };
}
