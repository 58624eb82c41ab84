/**
 * Signed-request throughput and latency for a read route (`POST /v1/cashier/status`), next to a
 * baseline measured in the same run on the same PostgreSQL: a bare node:http server doing one INSERT
 * per request. Prints both and the ratio (target: at least 0.5).
 *   npx tsx bench/http.ts [--requests 4000] [--concurrency 32]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

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

/** Starts one benchmark server in its own process and resolves with the JSON line it prints. */
function spawnServer(kind: 'service' | 'baseline', databaseUrl: string) {
  const child = spawn(
    path.join(root, 'node_modules/.bin/tsx'),
    [path.join(root, 'bench/http-server.ts'), kind],
    {
      env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise<{ info: Record<string, string>; stop: () => void }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ info: JSON.parse(line), stop: () => child.kill('SIGKILL') });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
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
  const baselineServer = await spawnServer('baseline', url);
  const serviceServer = await spawnServer('service', url);
  try {
    const bareUrl = `${baselineServer.info.url}/`;
    const { url: serviceUrl, keyId, secret, session } = serviceServer.info as Record<string, string>;
    const statusBody = JSON.stringify({ session });
    const target = '/v1/cashier/status';
    const bare = async () => {
      const res = await fetch(bareUrl, { method: 'POST', body: '{}' });
      await res.arrayBuffer();
      return res.status;
    };
    const signed = async () => {
      const res = await fetch(`${serviceUrl}${target}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signedHeaders(keyId!, secret!, { method: 'POST', target, body: statusBody }),
        },
        body: statusBody,
      });
      await res.arrayBuffer();
      return res.status;
    };
    const warm = Math.min(500, Math.floor(requests / 4));
    await load(warm, concurrency, bare);
    await load(warm, concurrency, signed);
    const baseline = await load(requests, concurrency, bare);
    const service = await load(requests, concurrency, signed);

    const row = (name: string, r: Result) =>
      `${name.padEnd(52)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms`;
    console.log(
      `signed read route vs bare node:http + 1 INSERT (${requests} requests, concurrency ${concurrency}, ${os.cpus().length} cores; each server in its own process)`,
    );
    console.log(row('baseline: node:http + one PostgreSQL INSERT', baseline));
    console.log(row('service: signed POST /v1/cashier/status', service));
    console.log(
      `throughput ratio service/baseline: ${(service.rps / baseline.rps).toFixed(2)} (target >= 0.50)`,
    );
  } finally {
    baselineServer.stop();
    serviceServer.stop();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
