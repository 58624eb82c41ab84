import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect, inject, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';

it('migrations apply to an empty database, and a second run is a no-op', async () => {
  const admin = new pg.Client(inject('pgAdminUrl'));
  await admin.connect();
  const name = `empty_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(inject('pgAdminUrl'));
  url.pathname = `/${name}`;
  await migrate(url.toString());
  await migrate(url.toString());
  const client = new pg.Client(url.toString());
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' order by 1`,
    );
    const names = tables.rows.map((r) => r.table_name);
    for (const table of [
      'merchants',
      'api_keys',
      'settlement_wallets',
      'merchant_allowed_ips',
      'operator_tokens',
      'request_nonces',
    ]) {
      expect(names).toContain(table);
    }
    const worker = await client.query(
      `select count(*)::int as n from information_schema.schemata where schema_name = 'graphile_worker'`,
    );
    expect(worker.rows[0].n).toBe(1);
  } finally {
    await client.end();
  }
});
