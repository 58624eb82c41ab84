import { executeBound } from '../../db/bulk.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { PaymentKind } from './payment.entity.ts';

/**
 * Writing the payments ledger. Set-based: a chunk of logs becomes one INSERT whatever its size, and
 * a reorganisation one DELETE, so a follower backfilling thousands of transfers costs a handful of
 * statements per chunk.
 */

/** One on-chain transfer as a consumer decoded it (addresses lowercase `0x`). */
export interface LedgerEntry {
  txHash: string;
  logIndex: number;
  blockNumber: number;
  blockHash: string;
  kind: PaymentKind;
  token: string;
  payer: string;
  recipient: string;
  amountRaw: bigint;
  orderRef?: string | null;
}

/**
 * Records entries of `network`, each once: a transfer already in the ledger (the same chunk read
 * again after a crash) keeps its row and id. Nothing comes back: whoever claims the rows reads them
 * by what they carry (a backfill's thousands of returned rows cost the follower their parsing).
 */
export async function recordPayments(
  em: EntityManager,
  network: string,
  entries: readonly LedgerEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  const rows = entries.map((e) => ({
    ...e,
    amountRaw: e.amountRaw.toString(),
    orderRef: e.orderRef ?? null,
  }));
  await executeBound(
    em,
    `with written as (${upsertPaymentsSql(`(select e."txHash" as tx_hash, e."logIndex" as log_index, e."blockNumber" as block_number,
            e."blockHash" as block_hash, e.kind, e.token, e.payer, e.recipient, e."amountRaw"::numeric as amount_raw,
            e."orderRef" as order_ref
       from json_to_recordset($2::json) as e("txHash" text, "logIndex" int, "blockNumber" bigint, "blockHash" text,
            kind text, token text, payer text, recipient text, "amountRaw" text, "orderRef" text))`)})
     select count(*) from written`,
    [network, JSON.stringify(rows)],
  );
}

/**
 * The ledger's write of the rows of `source` (a subquery with the columns tx_hash, log_index,
 * block_number, block_hash, kind, token, payer, recipient, amount_raw, order_ref) on network `$1`: a
 * row read again keeps its id, its block updated. Returns id, tx_hash, log_index of every row. For a
 * statement that writes ledger rows together with what claims them (deposit.scan.ts).
 */
export const upsertPaymentsSql = (source: string) => `
  insert into payments (network, tx_hash, log_index, block_number, block_hash, kind, token, payer, recipient,
                        amount_raw, order_ref, created_at)
  select $1::text, s.tx_hash, s.log_index, s.block_number, s.block_hash, s.kind, s.token, s.payer, s.recipient,
         s.amount_raw, s.order_ref, now()
    from ${source} s
  on conflict (network, tx_hash, log_index) do update set block_number = excluded.block_number,
    block_hash = excluded.block_hash
  returning id, tx_hash, log_index`;

/**
 * Deletes the unclaimed rows of blocks above `block` (they left the canonical chain). Claims must be
 * released first; a row still claimed (by a settled order or a credited deposit, which cannot be
 * undone) is kept. An operator's decision on a deleted row goes with it (operators decide only on
 * rows at their confirmation depth, so only a reorganisation deeper than that reaches one).
 */
export async function forgetPaymentsAbove(em: EntityManager, network: string, block: number): Promise<void> {
  await em.execute(
    `delete from payments p where p.network = ? and p.block_number > ?
        and not exists (select 1 from sessions s where s.payment_id = p.id)
        and not exists (select 1 from deposits d where d.payment_id = p.id)`,
    [network, block],
  );
}
