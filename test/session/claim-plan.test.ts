import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeBound } from '../../src/db/bulk.ts';
import { RANGE_CANDIDATES } from '../../src/modules/session/session.match.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { explainAnalyze, type PlanNode, rowsVisited } from '../support/plan.ts';

/**
 * The claim of a block range reads its sessions' payments by `order_ref`, a bounded number of rows per
 * session, also on a ledger the planner has no statistics of yet (a new installation's first backfill):
 * there it once combined the `order_ref` index with the network's, which holds every ledger row, and
 * read all of them once per session (0.2 s of a 1 000-session range, in the follower bench).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('the range claim on a ledger without statistics', () => {
  it('reads each session’s payments by its order_ref, not the network’s whole ledger once per session', async () => {
    const { id: merchantId } = await t.merchant();
    const n = 500;
    const rollback = new Error('rollback');
    let plan: PlanNode | undefined;
    let found = 0;
    await expect(
      t.app.fork().transactional(async (tx) => {
        // n sessions at awaiting_payment, each paid once in the range; as many other payments on the network.
        await tx.execute(
          `insert into sessions (id, merchant_id, step, status, order_ref, network, token, amount, payee, wallet,
                                 expires_at, created_at, updated_at)
           select 'cs_plan_' || i, ?, 'awaiting_payment', 'pending', '0xref' || i, 'eth', 'USDC', '1', '0xpayee',
                  '0xwallet', now() + interval '1 day', now(), now()
             from generate_series(1, ?) i`,
          [merchantId, n],
        );
        await tx.execute(
          `insert into payments (network, tx_hash, log_index, block_number, block_hash, kind, token, payer, recipient,
                                 amount_raw, order_ref, created_at)
           select 'eth', '0xtx' || i, 0, i, '0xblock' || i, 'router_payment', '0xusdc', '0xwallet', '0xpayee',
                  1000000, case when i <= ? then '0xref' || i else '0xother' || i end, now()
             from generate_series(1, ?) i`,
          [n, 2 * n],
        );
        // What the planner knows of a table never analyzed: nothing (autovacuum may have run here).
        await tx.execute(
          `delete from pg_statistic where starelid in ('payments'::regclass, 'sessions'::regclass)`,
        );
        const refs = Array.from({ length: n }, (_, i) => `0xref${i + 1}`);
        plan = await explainAnalyze(tx, RANGE_CANDIDATES, ['eth', refs]);
        found = (await executeBound(tx, RANGE_CANDIDATES, ['eth', refs])).length;
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(found).toBe(n);
    // Each session and its payment are read a bounded number of times (the network's index read once
    // per session visits 2n² = half a million rows).
    expect(rowsVisited(plan!)).toBeLessThan(50 * n);
  });
});
