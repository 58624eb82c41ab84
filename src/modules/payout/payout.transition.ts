import type { EntityManager } from '../../db/orm.ts';
import { publish, topic } from '../../db/pubsub.ts';
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

/** The columns a change may write. */
export interface PayoutFields {
  status: PayoutStatus;
  failureReason: FailureReason | null;
  signature: string | null;
  txHash: string | null;
  executedBlock: number | null;
  executedBlockHash: string | null;
  relayNote: string | null;
  authorizedAt: Date | null;
  settledAt: Date | null;
}

const COLUMNS: Record<keyof PayoutFields, { column: string; type: string }> = {
  status: { column: 'status', type: 'text' },
  failureReason: { column: 'failure_reason', type: 'text' },
  signature: { column: 'signature', type: 'text' },
  txHash: { column: 'tx_hash', type: 'text' },
  executedBlock: { column: 'executed_block', type: 'bigint' },
  executedBlockHash: { column: 'executed_block_hash', type: 'text' },
  relayNote: { column: 'relay_note', type: 'text' },
  authorizedAt: { column: 'authorized_at', type: 'timestamptz' },
  settledAt: { column: 'settled_at', type: 'timestamptz' },
};

export interface PayoutChange {
  kind: PayoutTransition;
  payout: PayoutSnapshot;
  set: Partial<PayoutFields>;
}

/**
 * Applies changes in the caller's transaction: one UPDATE per distinct set of columns, however many
 * payouts (a batch settles up to 100 items at once). Returns the ids whose change was applied.
 */
export async function transitionPayouts(
  em: EntityManager,
  changes: readonly PayoutChange[],
): Promise<Set<string>> {
  const applied = new Set<string>();
  if (changes.length === 0) return applied;
  for (const change of changes) check(change);
  const groups = new Map<string, PayoutChange[]>();
  for (const change of changes) {
    const key = Object.keys(change.set).sort().join(',');
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  for (const group of groups.values()) {
    const fields = Object.keys(group[0]!.set) as (keyof PayoutFields)[];
    const rows = group.map((c) => ({ id: c.payout.id, version: c.payout.version, ...jsonFields(c.set) }));
    const sets = fields.map((f) => `${COLUMNS[f].column} = v.${COLUMNS[f].column}, `).join('');
    const selects = fields.map((f) => `, v."${f}"::${COLUMNS[f].type} as ${COLUMNS[f].column}`).join('');
    const types = fields.map((f) => `, "${f}" text`).join('');
    const updated = await em.execute<{ id: string }[]>(
      `update payouts p set ${sets}version = p.version + 1, updated_at = now()
         from (select v.id, v.version${selects}
                 from jsonb_to_recordset(?::jsonb) as v(id text, version int${types})) v
        where p.id = v.id and p.version = v.version
        returning p.id`,
      [JSON.stringify(rows)],
    );
    for (const row of updated) applied.add(row.id);
  }
  const done = changes.filter((c) => applied.has(c.payout.id));
  await enqueueWebhooks(
    em,
    done.flatMap((change) => {
      const event = (PAYOUT_TRANSITIONS[change.kind] as { event?: WebhookName }).event;
      return event ? [webhookOf(change, event)] : [];
    }),
  );
  await publish(
    em,
    payoutChanged,
    done.map((c) => ({ id: c.payout.id, merchantId: c.payout.merchantId, batchId: c.payout.batchId ?? '' })),
  );
  return applied;
}

function check(change: PayoutChange): void {
  const rule = PAYOUT_TRANSITIONS[change.kind];
  const to = change.set.status ?? change.payout.status;
  const allowed =
    (rule.from as readonly string[]).includes(change.payout.status) &&
    (rule.to as readonly string[]).includes(to);
  if (!allowed)
    throw new Error(
      `payout ${change.payout.id}: ${change.kind} cannot move ${change.payout.status} to ${to}`,
    );
  if (to === 'failed' && !change.set.failureReason)
    throw new Error(`payout ${change.payout.id}: failing needs a failure_reason`);
}

/** Values as JSON for jsonb_to_recordset: dates as ISO strings, absent as null. */
function jsonFields(set: Partial<PayoutFields>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(set)) {
    out[key] = value instanceof Date ? value.toISOString() : value === undefined ? null : value;
  }
  return out;
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
