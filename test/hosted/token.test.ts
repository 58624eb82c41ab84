import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import {
  HOSTED_TOKEN_PATTERN,
  hashHostedToken,
  hostedUrl,
  newHostedToken,
} from '../../src/modules/hosted/hosted.token.ts';

describe('hosted tokens (D12)', () => {
  it('are URL-safe, carry 256 random bits, and are stored only as their SHA-256', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { token, hash } = newHostedToken();
      expect(token).toMatch(HOSTED_TOKEN_PATTERN);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(hash).toBe(createHash('sha256').update(token).digest('hex'));
      expect(hash).not.toContain(token);
      seen.add(token);
    }
    expect(seen.size).toBe(200);
    expect(hashHostedToken('abc')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('build the page address without a doubled slash', () => {
    expect(hostedUrl('https://pay.example.com', 'T')).toBe('https://pay.example.com/p/T');
    expect(hostedUrl('https://pay.example.com/', 'T')).toBe('https://pay.example.com/p/T');
  });

  it('migration adds the hosted columns to sessions, the token hash unique', async () => {
    const admin = new pg.Client(inject('pgAdminUrl'));
    await admin.connect();
    const name = `hosted_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(inject('pgAdminUrl'));
    url.pathname = `/${name}`;
    await migrate(url.toString());
    const client = new pg.Client(url.toString());
    await client.connect();
    try {
      const cols = await client.query<{ column_name: string; is_nullable: string }>(
        `select column_name, is_nullable from information_schema.columns
          where table_name = 'sessions' and column_name in ('hosted_token_hash','return_url','hosted_expires_at')
          order by 1`,
      );
      expect(cols.rows).toEqual([
        { column_name: 'hosted_expires_at', is_nullable: 'YES' },
        { column_name: 'hosted_token_hash', is_nullable: 'YES' },
        { column_name: 'return_url', is_nullable: 'YES' },
      ]);
      const unique = await client.query(
        `select 1 from pg_constraint where conname = 'sessions_hosted_token_hash_unique' and contype = 'u'`,
      );
      expect(unique.rowCount).toBe(1);
    } finally {
      await client.end();
      const drop = new pg.Client(inject('pgAdminUrl'));
      await drop.connect();
      await drop.query(`DROP DATABASE "${name}"`);
      await drop.end();
    }
  });
});
