import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ListenError, startHttpServer } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * A bad setting stops `npm start` with one line naming the setting and what it expects, and a port
 * already in use is one clear line and a non-zero exit, never a WebSocket stack or a hung process.
 */

const root = path.resolve(import.meta.dirname, '../..');
let t: TestApp;
let networksFile: string;
beforeAll(async () => {
  t = await startTestApp();
  networksFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'startup-')), 'networks.json');
  writeFileSync(
    networksFile,
    JSON.stringify({ networks: [{ id: 'eth', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] }] }),
  );
});
afterAll(() => t?.close());

/** Runs `src/main.ts` with `env`; resolves to its exit code and output, failing after 60 s. */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      path.join(root, 'node_modules/.bin/tsx'),
      ['src/main.ts'],
      { cwd: root, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, timeout: 60_000 },
      (error, _stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? null) : 0,
          stderr,
          ms: Date.now() - started,
        }),
    );
  });
}

/** The non-empty lines a failed start printed. */
const lines = (stderr: string) => stderr.split('\n').filter((line) => line.trim() !== '');

it('names each malformed setting on one line with what it expects', () => {
  const message = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };
  expect(message({ EMBEDDED_PG_PORT: 'abc' })).toBe(
    'Invalid configuration: EMBEDDED_PG_PORT: must be a TCP port number (1-65535) (got "abc")',
  );
  expect(message({ EMBEDDED_PG_PORT: '70000' })).toMatch(
    /^Invalid configuration: EMBEDDED_PG_PORT: must be a TCP port/,
  );
  for (const url of [
    'postgres://',
    'postgres://user@host:notaport/db',
    'postgres://[bad/db',
    'localhost:5432',
  ]) {
    const text = message({ DATABASE_URL: url, NETWORKS_FILE: networksFile });
    expect(text, url).toMatch(/^Invalid configuration: DATABASE_URL: must be a URL such as postgres:\/\//);
    expect(text.split('\n')).toHaveLength(1);
  }
  expect(message({ PORT: 'eighty', HTTP_HEADERS_TIMEOUT_MS: 'soon' }).split('\n')).toEqual([
    expect.stringMatching(/^Invalid configuration: PORT: must be a TCP port number/),
    expect.stringMatching(/^Invalid configuration: HTTP_HEADERS_TIMEOUT_MS: /),
  ]);
});

it('npm start with EMBEDDED_PG_PORT=abc stops at once with one line and exit code 2', async () => {
  const r = await start({ EMBEDDED_PG_PORT: 'abc', DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'data-')) });
  expect(r.code).toBe(2);
  expect(lines(r.stderr)).toEqual([expect.stringMatching(/EMBEDDED_PG_PORT: must be a TCP port number/)]);
});

it('a missing network file stops start-up with one line naming NETWORKS_FILE', async () => {
  const r = await start({
    DATABASE_URL: t.config.databaseUrl!,
    NETWORKS_FILE: '/nonexistent/networks.json',
    SECRETS_KEY: t.config.secretsKey!.toString('hex'),
  });
  expect(r.code).not.toBe(0);
  expect(lines(r.stderr)).toEqual([
    expect.stringMatching(/NETWORKS_FILE: .*no such file: \/nonexistent\/networks\.json/),
  ]);
});

it('a port already in use: startHttpServer rejects with a clear ListenError', async () => {
  const port = Number(new URL(t.http.url).port);
  const error = await startHttpServer({ ...t.app, config: { ...t.app.config, port } }).catch(
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ListenError);
  expect((error as Error).message).toBe(
    `port ${port} is already in use on 127.0.0.1; stop the other process or set PORT`,
  );
});

it('npm start on a port in use prints one line and exits non-zero instead of hanging', async () => {
  const r = await start({
    DATABASE_URL: t.config.databaseUrl!,
    NETWORKS_FILE: networksFile,
    SECRETS_KEY: t.config.secretsKey!.toString('hex'),
    PORT: new URL(t.http.url).port,
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'warn',
  });
  expect(r.code).toBe(1);
  expect(r.ms).toBeLessThan(30_000);
  expect(lines(r.stderr)).toEqual([expect.stringMatching(/^startup failed: port \d+ is already in use/)]);
});

it('headers may not take longer than the whole request', () => {
  expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toThrow(
    /^Invalid configuration: HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/,
  );
});
