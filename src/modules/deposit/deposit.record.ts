import { upsertPaymentsSql } from '../ledger/ledger.ts';
import type { DepositNetwork } from './deposit.chain.ts';
import { type DepositChange, type DepositSnapshot, settledColumns } from './deposit.transition.ts';

/**
 * The scanner's statements: which of a chunk's recipients are issued addresses ({@link ISSUED_SQL}),
 * then, for the transfers to them, the ledger rows and the deposits claiming them in one statement
 * ({@link RECORD_SQL}) whatever their number.
 */

/** An issued address a chunk's transfer goes to: its row's id, by its lowercase hex. */
export interface IssuedAddress {
  address: string;
  id: string;
}

/**
 * `$1` the network, `$2` the chunk's recipients, comma-separated (lowercase hex: no comma can hide in
 * one): those that are issued addresses, with their rows' ids.
 */
export const ISSUED_SQL = `select address, id::text from deposit_addresses
  where network = $1 and address = any(string_to_array($2, ','))`;

/**
 * The status, version and `credited_at` a deposit is inserted with, by how it is found: pending, or
 * settled as the transition engine writes a settlement of a pending row ({@link settledColumns}).
 */
export function insertedColumns(network: DepositNetwork, at: Date): Record<string, Record<string, unknown>> {
  const settled = (kind: DepositChange['kind']) =>
    settledColumns({ kind, deposit: { version: 0, status: 'pending' } as DepositSnapshot, network, at });
  return {
    pending: { status: 'pending', version: 0, credited_at: null },
    credited: settled('credited'),
    below_fee: settled('below_fee'),
  };
}

/** The parameters of {@link RECORD_SQL} after the transfers' columns: the network's tokens, by index. */
export const tokenParams = (network: DepositNetwork) => [
  network.tokens.map((t) => t.symbol),
  network.tokens.map((t) => t.address),
  network.tokens.map((t) => t.decimals),
  network.tokens.map((t) => `${t.feeRaw}`),
];

/**
 * `$2`…`$13`: the chunk's transfers to issued addresses, each once (deposit.transfers.ts), one
 * comma-separated column each (the form PostgreSQL splits fastest, and the client builds with one
 * join); `$14`…`$17` the network's tokens (symbol, address, decimals, fee) as arrays a transfer's
 * token indexes; `$18` the columns each kind of deposit is inserted with. Their ledger rows (a row read
 * again keeps its id, its block updated) and the deposits claiming them (a payment already claimed
 * keeps its deposit); returns the deposits inserted, as the transition engine's snapshots.
 *
 * No join here multiplies rows it cannot count: the input is `unnest` (the planner knows its length),
 * its address rows are found by primary key, its tokens by array index. Matched to the issued addresses
 * inside the statement, the planner took the chunk's thousands of recipients against 100 000 addresses
 * for a single row, and then paired each deposit with its ledger row by a nested loop, quadratic in the
 * chunk's deposits (most of the statement's time at a few dozen).
 */
export const RECORD_SQL = `
with t as (
  select * from unnest(string_to_array($2, ','), string_to_array($3, ','), string_to_array($4, ',')::int[],
                       string_to_array($5, ',')::bigint[], string_to_array($6, ','), string_to_array($7, ','),
                       string_to_array($8, ','), string_to_array($9, ',')::numeric[],
                       string_to_array($10, ',')::numeric[], string_to_array($11, ','),
                       string_to_array($12, ',')::bigint[], string_to_array($13, ',')::int[])
    as t(id, tx_hash, log_index, block_number, block_hash, payer, recipient, amount_raw, credited_raw, kind,
         address_id, token)
), r as (
  select t.*, a.merchant_id, a.player_id, ($14::text[])[t.token + 1] as symbol,
         ($15::text[])[t.token + 1] as token_address, ($16::int[])[t.token + 1] as decimals,
         ($17::numeric[])[t.token + 1] as fee_raw, $18::jsonb -> t.kind as cols
    from t join deposit_addresses a on a.id = t.address_id
), p as (${upsertPaymentsSql(
  `(select tx_hash, log_index, block_number, block_hash, 'transfer' as kind, token_address as token, payer,
           recipient, amount_raw, null::text as order_ref from r)`,
)}), d as (
  insert into deposits (id, payment_id, address_id, merchant_id, network, player_id, token, token_address, decimals,
                        amount_raw, fee_raw, credited_raw, tx_hash, log_index, block_number, status, version,
                        credited_at, created_at, updated_at)
  select r.id, p.id, r.address_id, r.merchant_id, $1::text, r.player_id, r.symbol, r.token_address, r.decimals,
         r.amount_raw, r.fee_raw, r.credited_raw, r.tx_hash, r.log_index, r.block_number, r.cols ->> 'status',
         (r.cols ->> 'version')::int, (r.cols ->> 'credited_at')::timestamptz, now(), now()
    from r join p on p.tx_hash = r.tx_hash and p.log_index = r.log_index
  on conflict (payment_id) do nothing
  returning id, status
)
select d.id, d.status, r.merchant_id, r.player_id, r.recipient as address, r.symbol as token, r.decimals,
       r.amount_raw::text, r.fee_raw::text, r.credited_raw::text, r.tx_hash, r.block_number::text, r.log_index
  from d join r on r.id = d.id`;
