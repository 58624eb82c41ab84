import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SqlPool, type Statement } from '../../src/db/sql.ts';
import { AppError } from '../../src/errors.ts';
import { NonceStore } from '../../src/modules/auth/nonce-store.ts';
import { createTestDatabase } from '../support/db.ts';

let url: string;
let sql: SqlPool;
let db: pg.Client;
/** Statements the store sent, to see claims coalesce. */
let statements = 0;

beforeAll(async () => {
  url = await createTestDatabase();
  sql = new SqlPool(url);
  const query = sql.query.bind(sql);
  sql.query = (<Row extends Record<string, unknown>>(stmt: Statement, values: unknown[]) => {
    statements++;
    return query<Row>(stmt, values);
  }) as SqlPool['query'];
  db = new pg.Client(url);
  await db.connect();
});
afterAll(async () => {
  await sql?.close();
  await db?.end();
});

const count = async (where = 'true') =>
  Number((await db.query(`select count(*)::int as n from request_nonces where ${where}`)).rows[0].n);

it('consumes many concurrent nonces in a few statements, each exactly once', async () => {
  const store = new NonceStore(sql);
  statements = 0;
  const nonces = Array.from({ length: 300 }, (_, i) => `batch-${i}-nonce`);
  const results = await Promise.all(nonces.map((n) => store.consume('key_batch', n)));
  expect(results.every((fresh) => fresh)).toBe(true);
  expect(await count(`key_id = 'key_batch'`)).toBe(300);
  // Two go at once; the rest queue behind them and go 64 to a statement.
  expect(statements).toBeLessThanOrEqual(2 + Math.ceil(298 / 64));

  const again = await Promise.all(nonces.slice(0, 10).map((n) => store.consume('key_batch', n)));
  expect(again).toEqual(Array(10).fill(false));
});

it('of one nonce claimed many times at once, in one batch or across batches, exactly one wins', async () => {
  const store = new NonceStore(sql);
  const claims = Array.from({ length: 150 }, (_, i) =>
    store.consume('key_dup', i % 3 === 0 ? 'shared-nonce' : `own-${i}-nonce`),
  );
  const results = await Promise.all(claims);
  const shared = results.filter((_, i) => i % 3 === 0);
  expect(shared.filter(Boolean)).toHaveLength(1);
  expect(results.filter((_, i) => i % 3 !== 0).every(Boolean)).toBe(true);
  // The same nonce under another key is a different nonce.
  expect(await store.consume('key_other', 'shared-nonce')).toBe(true);
});

it('answers every claim of a failed batch with 503 and consumes none of them', async () => {
  const down = new SqlPool('postgres://postgres:postgres@127.0.0.1:9/none');
  try {
    const store = new NonceStore(down);
    const outcomes = await Promise.allSettled(
      ['lost-1-nonce', 'lost-2-nonce', 'lost-1-nonce', 'lost-3-nonce'].map((n) =>
        store.consume('key_down', n),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(AppError);
      expect((reason as AppError).code).toBe('unavailable');
    }
  } finally {
    await down.close();
  }
  // Nothing was consumed, so a retry with the same nonces against a healthy store succeeds.
  const store = new NonceStore(sql);
  expect(await store.consume('key_down', 'lost-1-nonce')).toBe(true);
});

it('prune deletes only nonces older than the replay window, in chunks, and reports how many', async () => {
  await db.query(`insert into request_nonces (key_id, nonce, created_at)
    select 'key_prune', 'old-' || g, now() - interval '1 hour' from generate_series(1, 23456) g`);
  await db.query(`insert into request_nonces (key_id, nonce, created_at)
    select 'key_prune', 'new-' || g, now() - interval '1 minute' from generate_series(1, 50) g`);
  const store = new NonceStore(sql);
  statements = 0;
  expect(await store.prune()).toBe(23456);
  expect(statements).toBe(3);
  expect(await count(`key_id = 'key_prune'`)).toBe(50);
  expect(await store.prune()).toBe(0);
});
