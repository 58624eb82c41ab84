import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/db/errors.ts';
import { createOrm } from '../../src/db/orm.ts';
import { toAppError } from '../../src/graphql/errors.ts';
import { entities } from '../../src/modules/index.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

const DOWN = 'postgres://postgres:postgres@127.0.0.1:9/none';

/** The error a real call throws. */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

let t: TestApp;
beforeAll(async () => {
  // Statements of the ORM (everything but the signed hot path) give up after a second here.
  t = await startTestApp({ env: { DB_STATEMENT_TIMEOUT_MS: '1000' } });
});
afterAll(() => t?.close());

describe('database errors', () => {
  it('a refused connection, a statement timeout and a terminated session are unavailable (503)', async () => {
    const refused = await thrown(async () => {
      const client = new pg.Client(DOWN);
      await client.connect();
    });
    const client = new pg.Client(t.config.databaseUrl);
    await client.connect();
    try {
      await client.query('SET statement_timeout = 50');
      const timeout = await thrown(() => client.query('SELECT pg_sleep(1)'));
      const orm = await createOrm(DOWN, { entities, poolMax: 1 });
      const viaOrm = await thrown(() => orm.em.fork().execute('select 1'));
      await orm.close(true);
      for (const error of [refused, timeout, viaOrm]) {
        expect(isDatabaseUnavailable(error)).toBe(true);
        expect(toAppError(error).status).toBe(503);
        expect(toAppError(error).code).toBe('unavailable');
      }
    } finally {
      await client.end();
    }
  });

  it('our own SQL mistakes and constraint violations stay internal errors, not 503', async () => {
    const client = new pg.Client(t.config.databaseUrl);
    await client.connect();
    try {
      const syntax = await thrown(() => client.query('SELEC 1'));
      await client.query('CREATE TEMP TABLE once (id int primary key)');
      await client.query('INSERT INTO once VALUES (1)');
      const duplicate = await thrown(() => client.query('INSERT INTO once VALUES (1)'));
      // A NUL the edge let through: the ORM sends it inlined, which the server calls a protocol violation.
      const nul = await thrown(() => t.app.fork().execute('select ?::text', ['a\u0000b']));
      expect((nul as { code?: string }).code).toBe('08P01');
      for (const error of [syntax, duplicate, nul, new Error('boom')]) {
        expect(isDatabaseUnavailable(error)).toBe(false);
        expect(toAppError(error).code).toBe('internal');
      }
    } finally {
      await client.end();
    }
  });

  it('a status poll that cannot read its session in time answers 503, not a hang or a 500', async () => {
    const m = await t.merchant();
    const init = await t.signed(m, 'POST', '/v1/cashier/init', {});
    const { session } = (await init.json()) as { session: string };
    const client = new pg.Client(t.config.databaseUrl);
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE');
      const res = await t.signed(m, 'POST', '/v1/cashier/status', { session });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unavailable');
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
    expect((await t.signed(m, 'POST', '/v1/cashier/status', { session })).status).toBe(200);
  });

  it('a step or an operator query blocked on a lock past the statement timeout answers 503', async () => {
    const m = await t.merchant();
    const init = await t.signed(m, 'POST', '/v1/cashier/init', {});
    const { session } = (await init.json()) as { session: string };
    const token = await t.operatorToken();
    const client = new pg.Client(t.config.databaseUrl);
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const step = await t.signed(m, 'POST', '/v1/cashier/step', {
        session,
        action: 'select_network',
        value: 'eth',
      });
      expect(step.status).toBe(503);
      expect(((await step.json()) as { error: { code: string } }).error.code).toBe('unavailable');
      const listed = await t.graphql(token, '{ sessions(first: 5) { nodes { id } } }');
      expect(listed.errors?.[0]?.extensions?.code).toBe('unavailable');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });

  it('after every database session is cut (a PostgreSQL restart), the API serves again from fresh connections', async () => {
    const m = await t.merchant();
    const token = await t.operatorToken();
    const init = await t.signed(m, 'POST', '/v1/cashier/init', {});
    const { session } = (await init.json()) as { session: string };
    const admin = new pg.Client(t.config.databaseUrl);
    await admin.connect();
    try {
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
    } finally {
      await admin.end();
    }
    // Pools drop the dead connections as the termination notices arrive; a request that races one is
    // a 503 the caller retries, never a crash or a 500.
    await new Promise((r) => setTimeout(r, 200));
    expect((await t.signed(m, 'POST', '/v1/cashier/status', { session })).status).toBe(200);
    expect((await t.signed(m, 'POST', '/v1/cashier/init', {})).status).toBe(200);
    const listed = await t.graphql(token, '{ sessions(first: 5) { nodes { id } } }');
    expect(listed.errors).toBeUndefined();
  });
});
