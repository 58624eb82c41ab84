import { id as topicOf } from 'ethers';
import type { EvmLog } from '../../chains/evm/index.ts';
import { executeBound } from '../../db/bulk.ts';
import type { EntityManager } from '../../db/orm.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { forgetPaymentsAbove, upsertPaymentsSql } from '../ledger/ledger.ts';
import type { DepositNetwork, DepositToken } from './deposit.chain.ts';
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

interface Transfer {
  log: EvmLog;
  token: DepositToken;
  from: string;
  to: string;
  amount: bigint;
}

/** Decodes the logs that are transfers of a configured token (the standard indexed layout). */
export function transfersOf(network: DepositNetwork, logs: readonly EvmLog[]): Transfer[] {
  const tokens = new Map(network.tokens.map((t) => [t.address, t]));
  const out: Transfer[] = [];
  for (const log of logs) {
    const token = tokens.get(log.address.toLowerCase());
    if (!token || log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3 || log.data.length !== 66)
      continue;
    out.push({
      log,
      token,
      from: `0x${log.topics[1]!.slice(26)}`.toLowerCase(),
      to: `0x${log.topics[2]!.slice(26)}`.toLowerCase(),
      amount: BigInt(log.data),
    });
  }
  return out;
}

/**
 * Records the chunk's transfers to issued addresses: each a ledger row and a deposit claiming it, in
 * one statement. A deposit on a block final by the service's rule (`finalized`) is inserted settled,
 * its `deposit.confirmed` announced by the transition engine; a later one is inserted pending and
 * settled when its block is final ({@link settleFinalDeposits}). The deposits' unique `payment_id`
 * decides what is new: a range scanned again inserts, and announces, nothing.
 */
export async function recordDeposits(
  em: EntityManager,
  network: DepositNetwork,
  logs: readonly EvmLog[],
  finalized: number,
): Promise<number> {
  const transfers = transfersOf(network, logs).filter((t) => t.amount > 0n);
  if (transfers.length === 0) return 0;
  const recipients = [...new Set(transfers.map((t) => t.to))];
  const issued = await executeBound<{ id: string; merchant_id: string; player_id: string; address: string }>(
    em,
    `select id, merchant_id, player_id, address from deposit_addresses where network = $1 and address = any($2::text[])`,
    [network.id, recipients],
  );
  if (issued.length === 0) return 0;
  const byAddress = new Map(issued.map((a) => [a.address, a]));
  const at = new Date();
  const found = transfers.flatMap((t) => {
    const to = byAddress.get(t.to);
    if (!to) return [];
    const credited = t.amount > t.token.feeRaw ? t.amount - t.token.feeRaw : 0n;
    const deposit: DepositSnapshot = {
      id: newId('deposit'),
      version: 0,
      status: 'pending',
      merchant_id: to.merchant_id,
      player_id: to.player_id,
      address: to.address,
      token: t.token.symbol,
      decimals: t.token.decimals,
      amount_raw: t.amount.toString(),
      fee_raw: t.token.feeRaw.toString(),
      credited_raw: credited.toString(),
      tx_hash: t.log.transactionHash.toLowerCase(),
      block_number: String(t.log.blockNumber),
      log_index: t.log.logIndex,
    };
    const final = t.log.blockNumber <= finalized;
    const change: DepositChange | undefined = final
      ? { kind: settlementOf(credited), deposit, network, at }
      : undefined;
    const row = {
      ...deposit,
      address_id: to.id,
      token_address: t.token.address,
      block_hash: t.log.blockHash.toLowerCase(),
      payer: t.from,
      credited_at: null,
      ...(change ? settledColumns(change) : {}),
    };
    return [{ row, change }];
  });
  const inserted = await executeBound<{ id: string }>(em, RECORD_SQL, [
    network.id,
    JSON.stringify(found.map((f) => f.row)),
  ]);
  const created = new Set(inserted.map((r) => r.id));
  await announceSettled(
    em,
    found.flatMap((f) => (f.change && created.has(f.row.id) ? [f.change] : [])),
  );
  return inserted.length;
}

/**
 * The ledger rows (a row read again keeps its id, its block updated) and the deposits claiming them
 * (a payment already claimed keeps its deposit), of `$2`'s rows; returns the deposits inserted.
 */
const RECORD_SQL = `
with r as (
  select * from json_to_recordset($2::json) as r(id text, address_id bigint, merchant_id text, player_id text,
    address text, token text, token_address text, decimals int, amount_raw numeric, fee_raw numeric,
    credited_raw numeric, tx_hash text, log_index int, block_number bigint, block_hash text, payer text,
    status text, version int, credited_at timestamptz)
), p as (${upsertPaymentsSql(
  `(select tx_hash, log_index, block_number, block_hash, 'transfer' as kind, token_address as token, payer,
           address as recipient, amount_raw, null::text as order_ref from r)`,
)})
insert into deposits (id, payment_id, address_id, merchant_id, network, player_id, token, token_address, decimals,
                      amount_raw, fee_raw, credited_raw, tx_hash, log_index, block_number, status, version,
                      credited_at, created_at, updated_at)
select r.id, p.id, r.address_id, r.merchant_id, $1::text, r.player_id, r.token, r.token_address, r.decimals,
       r.amount_raw, r.fee_raw, r.credited_raw, r.tx_hash, r.log_index, r.block_number, r.status, r.version,
       r.credited_at, now(), now()
  from r join p on p.tx_hash = r.tx_hash and p.log_index = r.log_index
on conflict (payment_id) do nothing
returning id`;

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
