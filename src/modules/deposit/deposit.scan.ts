import { id as topicOf } from 'ethers';
import type { EvmLog } from '../../chains/evm/index.ts';
import { executeBound } from '../../db/bulk.ts';
import type { EntityManager } from '../../db/orm.ts';
import { unavailable } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { forgetPaymentsAbove, upsertPaymentsSql } from '../ledger/ledger.ts';
import type { DepositNetwork } from './deposit.chain.ts';
import {
  announceSettled,
  type DepositChange,
  type DepositSnapshot,
  settledColumns,
  settlementOf,
} from './deposit.transition.ts';

/**
 * The scanner's part of the deposits consumer: the network's token `Transfer` logs of a chunk (one
 * `eth_getLogs` for every token, read by the follower) are matched against the issued addresses with
 * one indexed lookup, whatever the number of addresses; each match is a ledger row and a deposit
 * claiming it, so a rescan of the same range finds both and adds nothing.
 */

export const TRANSFER_TOPIC = topicOf('Transfer(address,address,uint256)');

/** The input columns of {@link RECORD_SQL}, one entry per transfer, in the order of its parameters. */
const INPUT = [
  'id',
  'txHash',
  'logIndex',
  'block',
  'blockHash',
  'token',
  'payer',
  'recipient',
  'amount',
  'credited',
  'kind',
] as const;

/**
 * The logs that are transfers of a configured token (the standard indexed layout) of more than 0, as
 * the columns of {@link RECORD_SQL}'s input, decided here: each one's deposit id, its credit (bigint:
 * the amount above the token's fee) and how its deposit is inserted, settled ({@link settlementOf}) when
 * its block is final by the service's rule (`finalized`), else pending. Addresses and hashes are
 * lowercase hex: issued addresses are stored so, and matched by plain equality, so nothing is
 * checksummed here. One pass over the logs, no object per transfer: it runs for every transfer of every
 * token, of which few reach an issued address.
 */
function transferColumns(network: DepositNetwork, logs: readonly EvmLog[], finalized: number) {
  const tokens = new Map(network.tokens.map((t, i) => [t.address, i]));
  const columns = Object.fromEntries(INPUT.map((c) => [c, [] as (string | number | bigint)[]])) as Record<
    (typeof INPUT)[number],
    (string | number | bigint)[]
  >;
  for (const log of logs) {
    const index = tokens.get(log.address.toLowerCase());
    if (index === undefined || log.topics.length !== 3 || log.data.length !== 66) continue;
    if (log.topics[0]!.toLowerCase() !== TRANSFER_TOPIC) continue;
    const { transactionHash: tx, blockHash, topics } = log;
    // The columns travel as comma-separated text: a comma in a node's string would shift them.
    if (tx.includes(',') || blockHash.includes(',') || topics[1]!.includes(',') || topics[2]!.includes(','))
      throw unavailable(`malformed node answer: a Transfer log of ${tx.slice(0, 80)}`);
    const amount = BigInt(log.data);
    if (amount === 0n) continue;
    const token = network.tokens[index]!;
    const credited = amount > token.feeRaw ? amount - token.feeRaw : 0n;
    columns.id.push(newId('deposit'));
    columns.txHash.push(tx.toLowerCase());
    columns.logIndex.push(log.logIndex);
    columns.block.push(log.blockNumber);
    columns.blockHash.push(blockHash.toLowerCase());
    columns.token.push(index);
    columns.payer.push(`0x${topics[1]!.slice(26).toLowerCase()}`);
    columns.recipient.push(`0x${topics[2]!.slice(26).toLowerCase()}`);
    columns.amount.push(amount);
    columns.credited.push(credited);
    columns.kind.push(log.blockNumber <= finalized ? settlementOf(credited) : 'pending');
  }
  return columns;
}

/**
 * Records the chunk's transfers to issued addresses, in one statement ({@link RECORD_SQL}) whatever
 * their number: the match against the issued addresses, each match's ledger row and the deposit
 * claiming it. A deposit on a block final by the service's rule (`finalized`) is inserted settled, its
 * `deposit.confirmed` announced by the transition engine; a later one is inserted pending and settled
 * when its block is final ({@link settleFinalDeposits}). The deposits' unique `payment_id` decides what
 * is new: a range scanned again inserts, and announces, nothing. Amounts and settlements are decided
 * in JavaScript ({@link transferColumns}); the statement only matches and writes. Returns how many
 * deposits it inserted.
 */
export async function recordDeposits(
  em: EntityManager,
  network: DepositNetwork,
  logs: readonly EvmLog[],
  finalized: number,
): Promise<number> {
  const columns = transferColumns(network, logs, finalized);
  if (columns.id.length === 0) return 0;
  const at = new Date();
  const tokens = network.tokens.map((t, i) => ({
    i,
    ...t,
    feeRaw: `${t.feeRaw}`,
    sweepMinimumRaw: undefined,
  }));
  const inserted = await executeBound<DepositSnapshot>(em, RECORD_SQL, [
    network.id,
    ...INPUT.map((c) => columns[c].join(',')),
    JSON.stringify(tokens),
    JSON.stringify(insertedColumns(network, at)),
  ]);
  const changes = inserted.flatMap((row): DepositChange[] =>
    row.status === 'pending'
      ? []
      : [{ kind: row.status, deposit: { ...row, version: 0, status: 'pending' }, network, at }],
  );
  await announceSettled(em, changes);
  return inserted.length;
}

/**
 * The status, version and `credited_at` a deposit is inserted with, by how it is found: pending, or
 * settled as the transition engine writes a settlement of a pending row ({@link settledColumns}).
 */
function insertedColumns(network: DepositNetwork, at: Date): Record<string, Record<string, unknown>> {
  const settled = (kind: DepositChange['kind']) =>
    settledColumns({ kind, deposit: { version: 0, status: 'pending' } as DepositSnapshot, network, at });
  return {
    pending: { status: 'pending', version: 0, credited_at: null },
    credited: settled('credited'),
    below_fee: settled('below_fee'),
  };
}

/**
 * `$2`…`$12`: the chunk's transfers, one comma-separated column each (the form PostgreSQL splits
 * fastest, and the client builds with one join); `$13` the network's tokens, `$14` the columns each
 * kind of deposit is inserted with. The transfers to issued addresses (a log given twice counted once),
 * their ledger rows (a row read again keeps its id, its block updated) and the deposits claiming them
 * (a payment already claimed keeps its deposit); returns the deposits inserted, as the transition
 * engine's snapshots.
 */
const RECORD_SQL = `
with t as (
  select * from unnest(string_to_array($2, ','), string_to_array($3, ','), string_to_array($4, ',')::int[],
                       string_to_array($5, ',')::bigint[], string_to_array($6, ','), string_to_array($7, ',')::int[],
                       string_to_array($8, ','), string_to_array($9, ','), string_to_array($10, ',')::numeric[],
                       string_to_array($11, ',')::numeric[], string_to_array($12, ','))
    as t(id, tx_hash, log_index, block_number, block_hash, token, payer, recipient, amount_raw, credited_raw, kind)
), k as (
  select * from json_to_recordset($13::json) as k(i int, symbol text, address text, decimals int, "feeRaw" numeric)
), a as (
  select id, merchant_id, player_id, address from deposit_addresses
   where network = $1 and address = any(string_to_array($9, ','))
), r as (
  select distinct on (t.tx_hash, t.log_index) t.*, a.id as address_id, a.merchant_id, a.player_id, k.symbol,
         k.address as token_address, k.decimals, k."feeRaw" as fee_raw, $14::jsonb -> t.kind as cols
    from t join a on a.address = t.recipient
    join k on k.i = t.token
   order by t.tx_hash, t.log_index
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

/**
 * Blocks above `ancestor` left the canonical chain: their pending deposits and ledger rows go. A
 * credited deposit is final and stays; one found above the ancestor means the node broke finality,
 * which is logged for operators and never undone here (the merchant was told; money moved).
 */
export async function forgetDeposits(
  em: EntityManager,
  network: DepositNetwork,
  ancestor: number,
  log: Logger,
): Promise<void> {
  const gone = await em.execute<{ id: string }[]>(
    `delete from deposits where network = ? and status = 'pending' and block_number > ? returning id`,
    [network.id, ancestor],
  );
  if (gone.length > 0) log.info('deposits left the chain before finality', { count: gone.length, ancestor });
  const [{ count } = { count: '0' }] = await em.execute<{ count: string }[]>(
    `select count(*)::text as count from deposits where network = ? and block_number > ?`,
    [network.id, ancestor],
  );
  if (count !== '0') {
    log.error('final deposits are above a reorganisation: the node broke finality; they stay credited', {
      count: Number(count),
      ancestor,
    });
  }
  await forgetPaymentsAbove(em, network.id, ancestor);
}
