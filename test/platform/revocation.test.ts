import { afterAll, beforeAll, expect, it } from 'vitest';
import { type App, createApp } from '../../src/app.ts';
import { type HttpServer, startHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { signedHeaders } from '../../src/modules/auth/request-signing.ts';
import { NO_CHAIN_NETWORKS, startTestApp, type TestApp } from '../support/app.ts';
import { cliFor } from '../support/cli.ts';

/** Credentials changed by one process (the CLI) apply in every running API process at once. */

let t: TestApp;
let second: { app: App; http: HttpServer };
beforeAll(async () => {
  t = await startTestApp();
  // A second API process on the same database: its own pools, key cache and LISTEN connection.
  const app = await createApp({
    config: t.config,
    networks: NO_CHAIN_NETWORKS,
    logger: createLogger('error'),
  });
  second = { app, http: await startHttpServer(app) };
});
afterAll(async () => {
  await second?.http.close();
  await second?.app.close();
  await t?.close();
});

/** A signed status read against `baseUrl`: 404 when the key is accepted (no such session), 401 when not. */
async function statusWith(baseUrl: string, key: { keyId: string; secret: string }): Promise<number> {
  const body = JSON.stringify({ session: 'cs_none' });
  const headers = signedHeaders(key.keyId, key.secret, {
    method: 'POST',
    target: '/v1/cashier/status',
    body,
  });
  const res = await fetch(`${baseUrl}/v1/cashier/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return res.status;
}

it('a key revoked from the CLI is refused by every API process within a second', async () => {
  const key = await t.merchant('Revoked');
  const apis = [t.http.url, second.http.url];
  // Both processes have verified (and cached) the key.
  expect(await Promise.all(apis.map((url) => statusWith(url, key)))).toEqual([404, 404]);
  await cliFor(t)('key:revoke', '--key', key.keyId);
  const revokedAt = Date.now();
  let statuses: number[] = [];
  while (Date.now() - revokedAt < 1_000) {
    statuses = await Promise.all(apis.map((url) => statusWith(url, key)));
    if (statuses.every((s) => s === 401)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  expect(statuses).toEqual([401, 401]);
}, 60_000);
