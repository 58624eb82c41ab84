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
