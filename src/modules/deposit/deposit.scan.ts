import { id as topicOf } from 'ethers';
import type { EvmLog } from '../../chains/evm/index.ts';
import { executeBound } from '../../db/bulk.ts';
import type { EntityManager } from '../../db/orm.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { forgetPaymentsAbove, type LedgerEntry, recordPayments } from '../ledger/ledger.ts';
import type { DepositNetwork, DepositToken } from './deposit.chain.ts';

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

/** Records the chunk's transfers to issued addresses as ledger rows and pending deposits. */
export async function recordDeposits(
  em: EntityManager,
  network: DepositNetwork,
  logs: readonly EvmLog[],
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
  const matched = transfers.filter((t) => byAddress.has(t.to));
  const entries: LedgerEntry[] = matched.map((t) => ({
    txHash: t.log.transactionHash.toLowerCase(),
    logIndex: t.log.logIndex,
    blockNumber: t.log.blockNumber,
    blockHash: t.log.blockHash.toLowerCase(),
    kind: 'transfer',
    token: t.token.address,
    payer: t.from,
    recipient: t.to,
    amountRaw: t.amount,
  }));
  const paymentIds = await recordPayments(em, network.id, entries);
  const rows = matched.map((t, i) => {
    const to = byAddress.get(t.to)!;
    const fee = t.token.feeRaw;
    return {
      id: newId('deposit'),
      paymentId: paymentIds[i],
      addressId: to.id,
      merchantId: to.merchant_id,
      playerId: to.player_id,
      token: t.token.symbol,
      tokenAddress: t.token.address,
      decimals: t.token.decimals,
      amountRaw: t.amount.toString(),
      feeRaw: fee.toString(),
      creditedRaw: (t.amount > fee ? t.amount - fee : 0n).toString(),
      txHash: entries[i]!.txHash,
      logIndex: t.log.logIndex,
      blockNumber: t.log.blockNumber,
    };
  });
  const inserted = await executeBound<{ id: string }>(
    em,
    `insert into deposits (id, payment_id, address_id, merchant_id, network, player_id, token, token_address, decimals,
                           amount_raw, fee_raw, credited_raw, tx_hash, log_index, block_number, status, created_at, updated_at)
     select r.id, r."paymentId", r."addressId", r."merchantId", $1::text, r."playerId", r.token, r."tokenAddress", r.decimals,
            r."amountRaw"::numeric, r."feeRaw"::numeric, r."creditedRaw"::numeric, r."txHash", r."logIndex",
            r."blockNumber", 'pending', now(), now()
       from json_to_recordset($2::json) as r(id text, "paymentId" bigint, "addressId" bigint, "merchantId" text,
            "playerId" text, token text, "tokenAddress" text, decimals int, "amountRaw" text, "feeRaw" text,
            "creditedRaw" text, "txHash" text, "logIndex" int, "blockNumber" bigint)
     on conflict (payment_id) do nothing
     returning id`,
    [network.id, JSON.stringify(rows)],
  );
  return inserted.length;
}

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
