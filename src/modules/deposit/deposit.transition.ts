import type { EntityManager } from '../../db/orm.ts';
import { publish, topic } from '../../db/pubsub.ts';
import { formatUnits } from '../../money.ts';
import { enqueueWebhooks } from '../webhook/outbox.ts';
import { type DepositNetwork, shownAddress } from './deposit.chain.ts';

/**
 * The one way a deposit settles (D8, section 6.5): a pending deposit whose block became final is
 * `credited` (above the fee) with its `deposit.confirmed` in the outbox, or `below_fee` (recorded for
 * operators, never credited, no event), in the caller's transaction. Set-based: one UPDATE for every
 * deposit of the network that became final, however many.
 */

/** Published on every settled deposit: its id and merchant; subscribers read the row. */
export const depositChanged = topic('deposit_changed', ['id', 'merchantId']);

interface SettledRow {
  id: string;
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
  status: 'credited' | 'below_fee';
  credited_at: Date;
}

/** Settles the network's pending deposits of blocks up to `finalized`. Returns how many were credited. */
export async function settleFinalDeposits(
  em: EntityManager,
  network: DepositNetwork,
  finalized: number,
): Promise<number> {
  const rows = await em.execute<SettledRow[]>(
    `update deposits d
        set status = case when d.credited_raw > 0 then 'credited' else 'below_fee' end, credited_at = now()
       from deposit_addresses a
      where d.network = ? and d.status = 'pending' and d.block_number <= ? and a.id = d.address_id
      returning d.id, d.merchant_id, d.player_id, a.address, d.token, d.decimals, d.amount_raw::text,
                d.fee_raw::text, d.credited_raw::text, d.tx_hash, d.block_number::text, d.log_index, d.status, d.credited_at`,
    [network.id, finalized],
  );
  // Events in chain order (an UPDATE returns rows in no particular order).
  rows.sort((a, b) => Number(a.block_number) - Number(b.block_number) || a.log_index - b.log_index);
  const credited = rows.filter((r) => r.status === 'credited');
  await enqueueWebhooks(
    em,
    credited.map((d) => ({
      merchantId: d.merchant_id,
      event: 'deposit.confirmed' as const,
      subjectId: d.id,
      occurredAt: new Date(d.credited_at),
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
    })),
  );
  await publish(
    em,
    depositChanged,
    rows.map((d) => ({ id: d.id, merchantId: d.merchant_id })),
  );
  return credited.length;
}
