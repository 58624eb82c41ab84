import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { parseNetworkFile } from '../../src/chains/networks.ts';
import { loadConfig } from '../../src/config.ts';

it('runs embedded with no configuration', () => {
  const config = loadConfig({});
  expect(config.embedded).toBe(true);
  expect(config.port).toBe(8080);
});

it('fails fast naming the bad setting', () => {
  expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
  expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y' })).toThrow(/NETWORKS_FILE/);
  expect(() =>
    loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y', NETWORKS_FILE: 'n.json' }),
  ).toThrow(/SECRETS_KEY/);
  expect(() => loadConfig({ SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY/);
  expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY/);
  expect(() => loadConfig({ DB_STATEMENT_TIMEOUT_MS: '10' })).toThrow(/DB_STATEMENT_TIMEOUT_MS/);
  expect(loadConfig({ DB_STATEMENT_TIMEOUT_MS: '5000' }).dbStatementTimeoutMs).toBe(5000);
});

it('validates the network file with the path of every bad entry', () => {
  const bad = {
    networks: [
      {
        id: 'eth',
        kind: 'evm',
        chainId: 1,
        rpcUrls: ['http://x'],
        confirmations: [{ blocks: 3 }, { below: '5', blocks: 1 }],
      },
      { id: 'eth', kind: 'solana', chainId: 1, rpcUrls: [] },
    ],
  };
  let message = '';
  try {
    parseNetworkFile(bad, 'networks.json');
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toMatch(/networks\.0\.confirmations\.0/);
  expect(message).toMatch(/networks\.1\.kind/);
  expect(message).toMatch(/networks\.1\.rpcUrls/);
});

it('reads SECRETS_KEY and DATABASE_URL from files named by *_FILE (Docker secrets), never both ways', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'config-'));
  const key = path.join(dir, 'secrets_key');
  const db = path.join(dir, 'database_url');
  writeFileSync(key, `${'cd'.repeat(32)}\n`);
  writeFileSync(db, 'postgres://gateway:pw@db:5432/gateway\n');
  const config = loadConfig({ SECRETS_KEY_FILE: key, DATABASE_URL_FILE: db, NETWORKS_FILE: 'n.json' });
  expect(Buffer.from(config.secretsKey!).toString('hex')).toBe('cd'.repeat(32));
  expect(config.databaseUrl).toBe('postgres://gateway:pw@db:5432/gateway');
  expect(config.embedded).toBe(false);
  expect(() => loadConfig({ SECRETS_KEY_FILE: key, SECRETS_KEY: 'ab'.repeat(32) })).toThrow(
    /set SECRETS_KEY or SECRETS_KEY_FILE, not both/,
  );
  expect(() => loadConfig({ SECRETS_KEY_FILE: path.join(dir, 'missing') })).toThrow(
    /SECRETS_KEY_FILE: cannot read .*missing \(ENOENT\)/,
  );
});

it('the example testnet network file (docs/networks.testnet.example.json) is a valid network file', () => {
  const file = path.resolve(import.meta.dirname, '../../docs/networks.testnet.example.json');
  const { networks } = parseNetworkFile(JSON.parse(readFileSync(file, 'utf8')), file);
  expect(networks.map((n) => `${n.id}:${n.kind}:${n.chainId}`)).toEqual([
    'sepolia:evm:11155111',
    'bsc-testnet:evm:97',
    'tron-nile:tron:3448148188',
  ]);
});

it('GRAPHQL_CORS_ORIGINS: none in production and loopback otherwise when unset; origins, * or empty when set', () => {
  const production = { NODE_ENV: 'production', SECRETS_KEY: 'ab'.repeat(32) };
  expect(loadConfig(production).graphqlCorsOrigins).toEqual([]);
  expect(loadConfig({}).graphqlCorsOrigins).toBe('loopback');
  expect(loadConfig({ GRAPHQL_CORS_ORIGINS: '' }).graphqlCorsOrigins).toEqual([]);
  expect(loadConfig({ ...production, GRAPHQL_CORS_ORIGINS: '*' }).graphqlCorsOrigins).toBe('any');
  expect(
    loadConfig({
      ...production,
      GRAPHQL_CORS_ORIGINS: 'https://Console.Example.com/, http://127.0.0.1:5173,https://a.example:443',
    }).graphqlCorsOrigins,
  ).toEqual(['https://console.example.com', 'http://127.0.0.1:5173', 'https://a.example']);
  for (const bad of [
    'console.example.com',
    'https://x.example/admin',
    'ftp://x.example',
    '*, https://x.example',
  ])
    expect(() => loadConfig({ GRAPHQL_CORS_ORIGINS: bad }), bad).toThrow(/GRAPHQL_CORS_ORIGINS/);
});
