import { afterAll, beforeAll, expect, it } from 'vitest';
import { type NetworkFile, networkFileSchema } from '../../src/chains/networks.ts';
import { claimFollowing, saveCursor, saveWindow } from '../../src/followers/store.ts';
import { workerAnvil } from '../support/anvil.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** What an operator watches: /metrics (Prometheus text) and /readyz. */

let t: TestApp;
let networks: NetworkFile;
beforeAll(async () => {
  const node = await workerAnvil();
  networks = networkFileSchema.parse({
    networks: [{ id: 'eth', kind: 'evm', chainId: node.chainId, rpcUrls: [node.rpcUrl], tokens: [] }],
  });
  t = await startTestApp({ networks });
});
afterAll(() => t?.close());

it('readiness: database and a node of every network answer', async () => {
  const res = await fetch(`${t.http.url}/readyz`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: 'ready', ready: true, database: 'ok', networks: { eth: 'ok' } });
});

it('metrics: operators only by default; requests by route and status, follower lag, outbox and queue', async () => {
  expect((await fetch(`${t.http.url}/metrics`)).status).toBe(401);
  const token = await t.operatorToken();
  // A follower that saw head 120 and a sessions consumer at block 100, 40 chain seconds behind.
  const em = t.app.fork();
  await claimFollowing(em, 'eth', 'test-owner');
  await saveWindow(em, 'eth', {
    added: [],
    pruneTo: 0,
    head: { number: 120, hash: '0x01', parentHash: '0x00', timestamp: 1_000_040 },
    finalized: 56,
  });
  await saveCursor(em, 'eth', 'sessions', {
    number: 100,
    hash: '0x02',
    parentHash: '',
    timestamp: 1_000_000,
  });
  await fetch(`${t.http.url}/v1/cashier/status`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  }); // unsigned: 401
  await fetch(`${t.http.url}/no/such/path`);

  const res = await fetch(`${t.http.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  expect(text).toMatch(/http_requests_total\{route="\/v1\/cashier\/status",method="POST",status="401"\} 1/);
  expect(text).toMatch(/http_requests_total\{route="other",method="GET",status="404"\} 1/);
  expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0.005",route="\/readyz",method="GET"\}/);
  expect(text).toMatch(/follower_lag_blocks\{network="eth",stream="sessions"\} 20/);
  expect(text).toMatch(/follower_lag_seconds\{network="eth",stream="sessions"\} 40/);
  expect(text).toMatch(/webhook_deliveries\{state="retrying"\} 0/);
  expect(text).toMatch(/# TYPE job_queue_depth gauge/);
});

it('metrics can be public, or off', async () => {
  for (const [setting, status] of [
    ['public', 200],
    ['off', 404],
  ] as const) {
    const other = await startTestApp({ networks, env: { METRICS: setting } });
    try {
      expect((await fetch(`${other.http.url}/metrics`)).status).toBe(status);
    } finally {
      await other.close();
    }
  }
});
