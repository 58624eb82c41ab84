import {
  col,
  defineAggregate,
  type OnStale,
  type TransitionResult,
  type TransitionTable,
} from '../../db/aggregate.ts';
import { notApplied, untilApplied } from '../../db/fresh-reads.ts';
import type { EntityManager } from '../../db/orm.ts';
import { topic } from '../../db/topic.ts';
import { formatUnits } from '../../money.ts';
import { enqueueWebhooks } from '../webhook/outbox.ts';
import { type DepositNetwork, shownAddress } from './deposit.chain.ts';
import type { DepositStatus } from './deposit.entity.ts';

/**
 * The one way a deposit settles (D8, section 6.5): a pending deposit whose block became final is
 * `credited` (above the fee) with its `deposit.confirmed` in the outbox, or `below_fee` (recorded for
 * operators, never credited, no event), in the caller's transaction. Written by the shared transition
 * engine (src/db/aggregate.ts): one version-guarded UPDATE for every deposit of the network that became
 * final, however many; a deposit the scanner finds on a block already final is inserted settled instead
 * (one write), its move checked and announced by the same engine ({@link announceSettled}).
 */

/** Published on every settled deposit: its id and merchant; subscribers read the row. */
export const depositChanged = topic('deposit_changed', ['id', 'merchantId']);

/** What each kind of change may leave and reach, and the webhook it sends. */
export const DEPOSIT_TRANSITIONS = {
  /** Final and above the fee. */
  credited: { from: ['pending'], to: ['credited'], event: 'deposit.confirmed' },
  /** Final, at or below the fee: recorded for operators only. */
  below_fee: { from: ['pending'], to: ['below_fee'] },
} as const satisfies Record<
  string,
  { from: readonly DepositStatus[]; to: readonly DepositStatus[]; event?: 'deposit.confirmed' }
>;

/** What a transition reads of the deposit: the guard, and the fields of its webhook. */
export interface DepositSnapshot {
  id: string;
  version: number;
  status: DepositStatus;
  merchant_id: string;
  player_id: string;
  address: string;
  token: string;
  decimals: number;
  amount_raw: string;
  fee_raw: string;
  credited_raw: string;
  tx_hash: string;
  block_number: string;
  log_index: number;
}

const COLUMNS = {
  status: col.text<DepositStatus>('status'),
  creditedAt: col.timestamptz('credited_at'),
};

export interface DepositChange {
  kind: keyof typeof DEPOSIT_TRANSITIONS;
  deposit: DepositSnapshot;
  network: DepositNetwork;
  /** When it settled (`credited_at`, the webhook's time). */
  at: Date;
}

const deposits = defineAggregate({
  table: 'deposits',
  label: 'deposit',
  columns: COLUMNS,
  transitions: DEPOSIT_TRANSITIONS as TransitionTable<DepositStatus, 'deposit.confirmed'>,
  subject: (change: DepositChange) => change.deposit,
  kind: (change) => change.kind,
  set: (change) => ({ status: change.kind, creditedAt: change.at }),
  webhooks: { of: webhookOf, enqueue: enqueueWebhooks },
  topic: depositChanged,
  notice: (c) => ({ id: c.deposit.id, merchantId: c.deposit.merchant_id }),
  // Events in chain order.
  order: (a, b) =>
    Number(a.deposit.block_number) - Number(b.deposit.block_number) ||
    a.deposit.log_index - b.deposit.log_index,
});

/** Applies deposit changes in `em`'s transaction; `onStale` says what a change computed from a stale version does. */
export const transitionDeposits = (
  em: EntityManager,
  changes: readonly DepositChange[],
  onStale: OnStale,
): Promise<TransitionResult<DepositChange>> => deposits.apply(em, changes, onStale);

/** How a deposit settles once final: credited above the fee, else recorded as below it. */
export const settlementOf = (creditedRaw: bigint): DepositChange['kind'] =>
  creditedRaw > 0n ? 'credited' : 'below_fee';

/**
 * Deposits found on a block already final are inserted settled, one write each: `settledColumns` is
 * what such a row holds (status, version, `credited_at`), and `announceSettled` announces the rows the
 * insert created (their `deposit.confirmed` and notices), checked by the transition engine as if
 * applied to a pending row.
 */
export const settledColumns = (change: DepositChange) => deposits.columnsOf(change);
/** See {@link settledColumns}. */
export const announceSettled = (em: EntityManager, changes: readonly DepositChange[]) =>
  deposits.created(em, changes);

/**
 * Settles the network's pending deposits of blocks up to `finalized`. Returns how many were credited.
 * Decided from chain data, so a change that loses its version race is decided again from a fresh,
 * locked read (src/db/fresh-reads.ts), never dropped.
 */
export async function settleFinalDeposits(
  em: EntityManager,
  network: DepositNetwork,
  finalized: number,
): Promise<number> {
  let credited = 0;
  await untilApplied('deposit credits', async (pass) => {
    const rows = await em.execute<DepositSnapshot[]>(
      `select d.id, d.version, d.status, d.merchant_id, d.player_id, a.address, d.token, d.decimals,
              d.amount_raw::text, d.fee_raw::text, d.credited_raw::text, d.tx_hash, d.block_number::text, d.log_index
         from deposits d join deposit_addresses a on a.id = d.address_id
        where d.network = ? and d.status = 'pending' and d.block_number <= ?
        ${pass.fresh ? 'for update of d' : ''}`,
      [network.id, finalized],
    );
    const at = new Date();
    const changes = rows.map(
      (deposit): DepositChange => ({
        kind: settlementOf(BigInt(deposit.credited_raw)),
        deposit,
        network,
        at,
      }),
    );
    const { applied } = await transitionDeposits(em, changes, 'report');
    credited += changes.filter((c) => c.kind === 'credited' && applied.has(c.deposit.id)).length;
    return notApplied(changes, applied, (c) => c.deposit.id);
  });
  return credited;
}

function webhookOf({ deposit: d, network, at }: DepositChange) {
  return {
    merchantId: d.merchant_id,
    event: 'deposit.confirmed' as const,
    subjectId: d.id,
    occurredAt: at,
    body: {
      deposit_id: d.id,
      merchant_id: d.merchant_id,
      player_id: d.player_id,
      address: shownAddress(network, d.address),
      network: network.id,
      token: d.token,
      amount: formatUnits(BigInt(d.amount_raw), d.decimals),
      amount_raw: d.credited_raw,
      credited: formatUnits(BigInt(d.credited_raw), d.decimals),
      fee: formatUnits(BigInt(d.fee_raw), d.decimals),
      tx_hash: d.tx_hash,
      block: Number(d.block_number),
    },
  };
}
