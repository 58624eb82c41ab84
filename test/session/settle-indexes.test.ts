import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Settling a session changes its `status` and `payment_id`, so PostgreSQL writes the row's new
 * version into every index of the table that holds it (a backfill settles thousands in one
 * statement). The indexes that only the follower's reads of open sessions, or lookups of a reported
 * hash, use hold only those rows: a settled session, or one that reported nothing, costs them no write.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

/** The indexes of `sessions` by their key columns, each with its predicate (null: every row). */
async function sessionIndexes(): Promise<Map<string, string | null>> {
  const rows = await t.app.fork().execute<{ columns: string; predicate: string | null }[]>(
    `select (select string_agg(a.attname, ',' order by k.n)
               from unnest(i.indkey) with ordinality as k(attnum, n)
               join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum) as columns,
            pg_get_expr(i.indpred, i.indrelid) as predicate
       from pg_index i where i.indrelid = 'sessions'::regclass`,
  );
  return new Map(rows.map((r) => [r.columns, r.predicate]));
}

describe('what a settling write costs the indexes of sessions', () => {
  it('the index of open sessions by network holds no settled session', async () => {
    const predicate = (await sessionIndexes()).get('network,status');
    expect(predicate).toMatch(/^\(\(status\)::text = ANY \(.*'pending'.*'processing'.*\)\)$/);
    expect(predicate).not.toMatch(/completed|failed/);
  });

  it('the index of reported hashes holds only sessions that reported one', async () => {
    expect((await sessionIndexes()).get('reported_tx_hash')).toBe('(reported_tx_hash IS NOT NULL)');
  });

  it('the follower still finds open sessions by that index on a table of mostly settled ones', async () => {
    const { id: merchantId } = await t.merchant();
    const rollback = new Error('rollback');
    let plan = '';
    await expect(
      t.app.fork().transactional(async (tx) => {
        await tx.execute(
          `insert into sessions (id, merchant_id, step, status, order_ref, network, token, amount, payee, wallet,
                                 expires_at, created_at, updated_at)
           select 'cs_idx_' || i, ?, s, s, '0xidx' || i, 'eth', 'USDC', '1', '0xpayee', '0xwallet',
                  now() + interval '1 day', now(), now()
             from generate_series(1, 5000) i,
                  lateral (select case when i <= 10 then 'processing' else 'completed' end as s) x`,
          [merchantId],
        );
        await tx.execute('analyze sessions');
        const rows = await tx.execute<{ 'QUERY PLAN': string }[]>(
          `explain select id from sessions s where s.network = 'eth' and s.status = 'processing'`,
        );
        plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(plan).toContain('sessions_open_network_status_index');
  });
});
