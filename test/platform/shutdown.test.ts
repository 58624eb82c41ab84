import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../../src/db/embedded-postgres.ts';
import { createTestDatabase } from '../support/db.ts';

/**
 * Ctrl-C as a terminal sends it (SIGINT to the whole process group) on `npm start` and on
 * `npm run worker`: the service stops in order and exits 0 within 5 s, with no error-level line.
 */

const root = path.resolve(import.meta.dirname, '../..');
const started: ChildProcess[] = [];
afterAll(() => {
  for (const child of started) if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
});

/** Runs `npm run <script>` in a process group of its own, as a terminal runs a foreground job. */
function npm(script: string, env: Record<string, string>) {
  const child = spawn('npm', ['run', script], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => output,
    async until(text: string, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (!output.includes(text)) {
        if (Date.now() > deadline || child.exitCode !== null)
          throw new Error(`no "${text}" in:\n${output.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async ctrlC(): Promise<{ code: number | null; ms: number }> {
      const t0 = Date.now();
      process.kill(-child.pid!, 'SIGINT');
      const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
      return { code, ms: Date.now() - t0 };
    },
  };
}

const runDemo = (env: NodeJS.ProcessEnv) =>
  promisify(execFile)(path.join(root, 'node_modules/.bin/tsx'), ['scripts/demo-deposit.ts'], {
    cwd: root,
    env,
  });

const errorLines = (output: string) => output.split('\n').filter((l) => l.includes('"level":"error"'));

it('npm start: npm run demo passes 20 times in a row against it; Ctrl-C then stops the whole embedded stack in order, exit 0 within 5 s, no error line', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shutdown-'));
  const run = npm('start', {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
  });
  await run.until('devstack ready', 120_000);
  // The demo finds the running instance through its DATA_DIR; deposits back to back never race.
  for (let i = 0; i < 20; i++) {
    const { stdout } = await runDemo({ ...process.env, DATA_DIR: dataDir });
    expect(stdout, `demo run ${i + 1}`).toMatch(
      /order completed\nwebhook payment.completed received by the dev inbox, signature verified/,
    );
  }
  const { code, ms } = await run.ctrlC();
  expect(code).toBe(0);
  expect(ms).toBeLessThan(5_000);
  expect(errorLines(run.output())).toEqual([]);
  expect(run.output()).toMatch(/"msg":"shutting down"/);
}, 300_000);

it('npm run worker: Ctrl-C stops the worker in order, exit 0 within 5 s, no error line', async () => {
  const networksFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'shutdown-')), 'networks.json');
  writeFileSync(
    networksFile,
    JSON.stringify({ networks: [{ id: 'eth', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] }] }),
  );
  const run = npm('worker', {
    DATABASE_URL: await createTestDatabase(),
    NETWORKS_FILE: networksFile,
    SECRETS_KEY: 'ab'.repeat(32),
  });
  await run.until('worker started', 60_000);
  await new Promise((r) => setTimeout(r, 1_000));
  const { code, ms } = await run.ctrlC();
  expect(code).toBe(0);
  expect(ms).toBeLessThan(5_000);
  expect(errorLines(run.output())).toEqual([]);
}, 120_000);
