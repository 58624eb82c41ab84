import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { recordWebhookRule } from '../../src/modules/merchant/webhook-rule.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { cliFor, runCli } from '../support/cli.ts';

let t: TestApp;
// biome-ignore lint/suspicious/noExplicitAny: the CLI prints JSON whose shape each test checks
let cli: (...args: [...string[]] | [...string[], Record<string, string>]) => Promise<any>;
beforeAll(async () => {
  t = await startTestApp();
  cli = cliFor(t);
});
afterAll(() => t?.close());

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

it("sets a merchant's webhook URL by the rule the gateway recorded, not the CLI's own environment", async () => {
  const loopback = 'http://127.0.0.1:9/hooks';
  const refused = (env: Record<string, string>) =>
    cli('merchant:create', '--name', 'Hooks', '--webhook-url', loopback, env).then(
      () => false,
      (error: { stderr: string }) => /webhook_url/.test(error.stderr),
    );
  // No gateway has recorded a rule yet: the CLI's own configuration decides.
  expect(await refused({ WEBHOOK_ALLOW_PRIVATE: 'true' })).toBe(false);
  // A gateway that refuses private targets started on this database: the CLI refuses them too, whatever
  // its own WEBHOOK_ALLOW_PRIVATE says; and the other way round.
  await recordWebhookRule(t.app.fork(), false);
  expect(await refused({ WEBHOOK_ALLOW_PRIVATE: 'true' })).toBe(true);
  await recordWebhookRule(t.app.fork(), true);
  expect(await refused({ WEBHOOK_ALLOW_PRIVATE: 'false' })).toBe(false);
}, 90_000);

it('answers an unknown command, an option another command has, or a missing one with the usage of every command', async () => {
  const refused = (...args: string[]) =>
    cli(...args).then(
      () => '',
      (error: { stderr: string; code: number }) => {
        expect(error.code).toBe(1);
        return error.stderr;
      },
    );
  const unknown = await refused('merchant:delete');
  for (const name of ['merchant:create', 'key:rotate', 'payouts:list', 'relayers', 'contracts:deploy'])
    expect(unknown).toContain(`\n  ${name}`);
  expect(await refused('key:issue', '--merchant', 'mer_x', '--grace-seconds', '5')).toMatch(
    /^key:issue: Unknown option '--grace-seconds'[\s\S]*usage: npm run cli/,
  );
  expect(await refused('key:revoke')).toMatch(/^key:revoke: --key is required\nusage: npm run cli/);
});

it('help lists every command in one line each, and every command answers --help with its usage and needs', async () => {
  const { code, stdout } = await runCli(['help']);
  expect(code).toBe(0);
  const listed = stdout.split('\n').filter((l) => l.startsWith('  '));
  expect(listed.map((l) => l.trim().split(/\s+/)[0])).toEqual(COMMANDS.map((c) => c.name));
  for (const line of listed) expect(line.trim().split(/\s{2,}/)[1], line).toMatch(/^[a-z]/);
  const helps = await Promise.all(
    COMMANDS.map((c) => runCli([c.name, '--help'], { DATABASE_URL: undefined })),
  );
  COMMANDS.forEach((c, i) => {
    expect(helps[i]!.code, c.name).toBe(0);
    expect(helps[i]!.stdout, c.name).toMatch(new RegExp(`^usage: npm run -s cli -- ${c.name}\\b`));
    expect(helps[i]!.stdout, c.name).toMatch(/needs: /);
  });
});

it('outside the embedded stack without SECRETS_KEY, says what is missing in one line and exits 1', async () => {
  const networksFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'cli-')), 'networks.json');
  writeFileSync(networksFile, JSON.stringify({ networks: [] }));
  const { code, stdout, stderr } = await runCli(['merchant:create', '--name', 'No key'], {
    DATABASE_URL: t.config.databaseUrl!,
    NETWORKS_FILE: networksFile,
    SECRETS_KEY: undefined,
    SECRETS_KEY_FILE: undefined,
  });
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr.trim().split('\n')).toHaveLength(1);
  expect(stderr).toMatch(/^merchant:create: SECRETS_KEY is required with DATABASE_URL/);
});
