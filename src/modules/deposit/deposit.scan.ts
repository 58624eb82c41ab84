import type { EvmLog } from '../../chains/evm/index.ts';
import { executeBound } from '../../db/bulk.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { forgetPaymentsAbove } from '../ledger/ledger.ts';
import type { DepositNetwork } from './deposit.chain.ts';
import {
  ISSUED_SQL,
  type IssuedAddress,
  insertedColumns,
  RECORD_SQL,
  tokenParams,
} from './deposit.record.ts';
import { TRANSFER_INPUT, tokenTransfers, transferColumns } from './deposit.transfers.ts';
import { announceSettled, type DepositChange, type DepositSnapshot } from './deposit.transition.ts';

/**
 * The scanner's part of the deposits consumer: the network's token `Transfer` logs of a chunk (one
 * `eth_getLogs` for every token, read by the follower) are matched against the issued addresses with
 * one indexed lookup, whatever the number of addresses; each match is a ledger row and a deposit
 * claiming it, so a rescan of the same range finds both and adds nothing.
 */

/**
 * Records the chunk's transfers to issued addresses: which recipients are issued is read first
 * ({@link ISSUED_SQL}: the recipients only, so the chunk's other transfers, most of them, are neither
 * decoded further nor sent), then one statement ({@link RECORD_SQL}) whatever their number writes each
 * one's ledger row and the deposit claiming it. A deposit on a block final by the service's rule
 * (`finalized`) is inserted settled, its `deposit.confirmed` announced by the transition engine; a
 * later one is inserted pending and settled when its block is final (settleFinalDeposits). The
 * deposits' unique `payment_id` decides what is new: a range scanned again inserts, and announces,
 * nothing. Amounts and settlements are decided in JavaScript (deposit.transfers.ts); the statements
 * only match and write. Returns how many deposits it inserted.
 */
export async function recordDeposits(
  em: EntityManager,
  network: DepositNetwork,
  logs: readonly EvmLog[],
  finalized: number,
): Promise<number> {
  const transfers = tokenTransfers(network, logs);
  if (transfers.logs.length === 0) return 0;
  const issued = await executeBound<IssuedAddress>(em, ISSUED_SQL, [
    network.id,
    [...new Set(transfers.recipients)].join(','),
  ]);
  if (issued.length === 0) return 0;
  const byAddress = new Map(issued.map((r) => [r.address, r.id]));
  const columns = transferColumns(network, transfers, byAddress, finalized);
  if (columns.id.length === 0) return 0;
  const at = new Date();
  const inserted = await executeBound<DepositSnapshot>(em, RECORD_SQL, [
    network.id,
    ...TRANSFER_INPUT.map((c) => columns[c].join(',')),
    ...tokenParams(network),
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
