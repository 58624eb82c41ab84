import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

let t: TestApp;
let networksFile: string;
beforeAll(async () => {
  t = await startTestApp();
  const { writeFileSync, mkdtempSync } = await import('node:fs');
  const os = await import('node:os');
  networksFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'cli-')), 'networks.json');
  writeFileSync(
    networksFile,
    JSON.stringify({ networks: [{ id: 'eth', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] }] }),
  );
});
afterAll(() => t?.close());

async function cli(...args: string[]) {
  const env = {
    ...process.env,
    DATABASE_URL: t.config.databaseUrl!,
    NETWORKS_FILE: networksFile,
    SECRETS_KEY: t.config.secretsKey!.toString('hex'),
  };
  const { stdout } = await run(path.join(root, 'node_modules/.bin/tsx'), ['src/cli.ts', ...args], {
    cwd: root,
    env,
  });
  return JSON.parse(stdout);
}

it('creates a merchant, issues a key the service accepts, sets a wallet and an allowlist', async () => {
  const merchant = await cli('merchant:create', '--name', 'From CLI');
  expect(merchant.id).toMatch(/^mer_/);
  const key = await cli('key:issue', '--merchant', merchant.id);
  expect(key.secret).toMatch(/^sk_/);
  const res = await t.signed({ keyId: key.id, secret: key.secret }, 'POST', '/v1/cashier/status', {
    session: 'cs_x',
  });
  expect(res.status).toBe(404);
  const wallet = await cli(
    'wallet:set',
    '--merchant',
    merchant.id,
    '--network',
    'eth',
    '--address',
    `0x${'ab'.repeat(20)}`,
  );
  expect(wallet).toMatchObject({ network: 'eth', address: `0x${'ab'.repeat(20)}` });
  expect(await cli('allowlist:set', '--merchant', merchant.id, '--ip', '10.1.2.0/24')).toEqual([
    '10.1.2.0/24',
  ]);
  const rotated = await cli('key:rotate', '--key', key.id);
  expect(rotated.issued.id).not.toBe(key.id);
  const token = await cli('operator:token', '--name', 'ci');
  expect(token.token).toMatch(/^opk_/);
}, 90_000);
