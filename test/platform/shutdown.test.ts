import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
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

it('npm start: says where the console is; npm run demo passes 20 times in a row against it; Ctrl-C then stops the whole embedded stack in order, exit 0 within 5 s, no error line', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shutdown-'));
  const run = npm('start', {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
  });
  await run.until('devstack ready', 120_000);
  // It says where the operator console is, and the console is there.
  await run.until('"msg":"listening"', 10_000);
  const listening = JSON.parse(
    run
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"listening"'))!,
  );
  const page = await fetch(listening.console);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await page.text()).toMatch(/<title>[^<]*[Cc]onsole/);
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

/**
 * A TCP proxy to the database that can freeze: connections stay open and nothing passes either way,
 * as when the database host vanishes (no reset, no answer).
 */
async function freezableProxy(target: string) {
  const url = new URL(target);
  const port = Number(url.port);
  const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname;
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    client.on('data', (d) => void (frozen || upstream.write(d)));
    upstream.on('data', (d) => void (frozen || client.write(d)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    url: url.toString(),
    freeze() {
      frozen = true;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

async function workerBehind(proxyUrl: string, env: Record<string, string> = {}) {
  const networksFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'shutdown-')), 'networks.json');
  writeFileSync(
    networksFile,
    JSON.stringify({ networks: [{ id: 'eth', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] }] }),
  );
  const run = npm('worker', {
    DATABASE_URL: proxyUrl,
    NETWORKS_FILE: networksFile,
    SECRETS_KEY: 'ab'.repeat(32),
    ...env,
  });
  await run.until('worker started', 60_000);
  await new Promise((r) => setTimeout(r, 1_000));
  return run;
}

it('a database lost during shutdown: the process still exits when SHUTDOWN_TIMEOUT_MS runs out, saying so', async () => {
  const proxy = await freezableProxy(await createTestDatabase());
  try {
    const run = await workerBehind(proxy.url, { SHUTDOWN_TIMEOUT_MS: '3000' });
    proxy.freeze();
    const { code, ms } = await run.ctrlC();
    expect(code).toBe(1);
    expect(ms).toBeGreaterThanOrEqual(2_900);
    expect(ms).toBeLessThan(8_000);
    expect(run.output()).toMatch(/"msg":"shutdown did not finish within its deadline; exiting"/);
  } finally {
    proxy.close();
  }
}, 120_000);

it('a second Ctrl-C during a shutdown that hangs exits at once', async () => {
  const proxy = await freezableProxy(await createTestDatabase());
  try {
    const run = await workerBehind(proxy.url, { SHUTDOWN_TIMEOUT_MS: '60000' });
    proxy.freeze();
    const first = run.ctrlC();
    await new Promise((r) => setTimeout(r, 1_500));
    const { code, ms } = await run.ctrlC();
    expect(code).toBe(130);
    expect(ms).toBeLessThan(2_000);
    expect(run.output()).toMatch(/"msg":"second signal: exiting at once"/);
    await first;
  } finally {
    proxy.close();
  }
}, 120_000);
