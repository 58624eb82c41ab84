/**
 * Signed-request throughput and latency for a read route (`POST /v1/cashier/status`), next to a
 * baseline measured in the same run on the same PostgreSQL: a bare node:http server doing one INSERT
 * per request. Prints both and the ratio (target: at least 0.5).
 *   npx tsx bench/http.ts [--requests 4000] [--concurrency 32]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createApp } from '../src/app.ts';
import { networkFileSchema } from '../src/chains/networks.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { startHttpServer } from '../src/http/server.ts';
import { createLogger } from '../src/lib/logger.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

async function load(requests: number, concurrency: number, send: () => Promise<number>): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) {
        const t0 = performance.now();
        const status = await send();
        if (status !== 200) throw new Error(`unexpected status ${status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
  return { rps: latencies.length / seconds, p50: pct(0.5), p99: pct(0.99) };
}

export async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: { requests: { type: 'string' }, concurrency: { type: 'string' } },
  });
  const requests = Number(values.requests ?? 4000);
  const concurrency = Number(values.concurrency ?? 32);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-http-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  const url = await db.createDatabase('bench');
  await migrate(url);

  // Baseline: bare node:http, one INSERT per request.
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  await pool.query(
    'create table baseline (id bigserial primary key, nonce text not null, at timestamptz default now())',
  );
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      pool.query('insert into baseline (nonce) values ($1)', [randomBytes(8).toString('hex')]).then(
        () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;

  // The service, on the same database server.
  const config = loadConfig({
    DATABASE_URL: url,
    NETWORKS_FILE: '(bench)',
    SECRETS_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'error',
  });
  const networks = networkFileSchema.parse({
    networks: [{ id: 'eth', kind: 'evm', chainId: 31337, rpcUrls: ['http://127.0.0.1:9'], tokens: [] }],
  });
  const app = await createApp({ config, networks, logger: createLogger('error') });
  const http = await startHttpServer(app);
  const em = app.fork();
  const merchant = await app.services.merchants.create(em, { name: 'bench' });
  const key = await app.services.merchants.issueKey(em, merchant.id);
  const signedPost = async (target: string, body: string) => {
    const res = await fetch(`${http.url}${target}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signedHeaders(key.id, key.secret, { method: 'POST', target, body }),
      },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  const init = await signedPost('/v1/cashier/init', '{}');
  if (init.status !== 200) throw new Error(`could not create a session to read: ${init.text}`);
  const created = JSON.parse(init.text) as { session: string };
  const statusBody = JSON.stringify({ session: created.session });

  const warm = Math.min(500, requests / 4);
  await load(
    warm,
    concurrency,
    async () =>
      (await fetch(bareUrl, { method: 'POST', body: '{}' }).then(async (r) => (await r.arrayBuffer(), r)))
        .status,
  );
  await load(warm, concurrency, async () => (await signedPost('/v1/cashier/status', statusBody)).status);
  const baseline = await load(requests, concurrency, async () => {
    const res = await fetch(bareUrl, { method: 'POST', body: '{}' });
    await res.arrayBuffer();
    return res.status;
  });
  const service = await load(
    requests,
    concurrency,
    async () => (await signedPost('/v1/cashier/status', statusBody)).status,
  );

  const row = (name: string, r: Result) =>
    `${name.padEnd(52)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms`;
  console.log(
    `signed read route vs bare node:http + 1 INSERT (${requests} requests, concurrency ${concurrency}, ${os.cpus().length} cores)`,
  );
  console.log(row('baseline: node:http + one PostgreSQL INSERT', baseline));
  console.log(row('service: signed POST /v1/cashier/status', service));
  console.log(
    `throughput ratio service/baseline: ${(service.rps / baseline.rps).toFixed(2)} (target >= 0.50)`,
  );

  await http.close();
  await app.close();
  await new Promise<void>((r) => bare.close(() => r()));
  await pool.end();
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
