/**
 * Signed-request throughput and latency for a read route (`POST /v1/cashier/status`), next to a
 * baseline measured in the same run on the same PostgreSQL: a bare node:http server doing one INSERT
 * per request. Prints both and the ratio (target: at least 0.5).
 *   npx tsx bench/http.ts [--requests 4000] [--concurrency 32]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { percentile } from './support.ts';

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
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

const CLOCK_TICKS = 100;

/** CPU milliseconds (user + system) used so far by one process, from /proc; 0 where there is none. */
function procCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

function allPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
}

/** CPU ms of every PostgreSQL process (the postmaster and its backends, whose titles they rewrite). */
function postgresCpu(): number {
  return allPids()
    .filter((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return cmd.startsWith('postgres') || cmd.includes('/bin/postgres');
      } catch {
        return false;
      }
    })
    .reduce((sum, pid) => sum + procCpu(pid), 0);
}

/** CPU ms of a process and its descendants (the tsx wrapper runs the server in a child). */
function treeCpu(root: number): number {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {}
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += procCpu(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Starts one benchmark server in its own process and resolves with the JSON line it prints. */
function spawnServer(kind: 'service' | 'baseline', databaseUrl: string) {
  // Node itself with tsx's loader (not the tsx wrapper), so that killing the child stops the server.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench/http-server.ts'), kind], {
    env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: databaseUrl },
    // tsx resolves from the project, wherever the bench was started.
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<{ info: Record<string, string>; pid: number; stop: () => void }>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ info: JSON.parse(line), pid: child.pid!, stop: () => child.kill('SIGKILL') });
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
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
    // CPU seconds the server process tree and PostgreSQL spend per request (Linux /proc; 0 elsewhere).
    const cpuBefore = () => ({
      load: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      idle: Number(readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/)[4]) * 10,
      pg: postgresCpu(),
      bare: treeCpu(baselineServer.pid),
      svc: treeCpu(serviceServer.pid),
    });
    const c0 = cpuBefore();
    const baseline = await load(requests, concurrency, bare);
    const c1 = cpuBefore();
    const service = await load(requests, concurrency, signed);
    const c2 = cpuBefore();
    const perRequest = (ms: number) => `${((ms / requests) * 1000).toFixed(0)} µs`;

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
    if (c2.pg > 0) {
      console.log(
        `CPU per request: baseline server ${perRequest(c1.bare - c0.bare)} + PostgreSQL ${perRequest(c1.pg - c0.pg)}; ` +
          `service server ${perRequest(c2.svc - c1.svc)} + PostgreSQL ${perRequest(c2.pg - c1.pg)}`,
      );
      console.log(
        `load generator: ${perRequest(c1.load - c0.load)} vs ${perRequest(c2.load - c1.load)}; idle: ${perRequest(c1.idle - c0.idle)} vs ${perRequest(c2.idle - c1.idle)}`,
      );
    }
    return [
      figure('signed read route throughput', service.rps, 'req/s', {
        baseline: baseline.rps,
        target: { of: 'ratio', op: '≥', bound: 0.5 },
      }),
      figure('signed read route p99', service.p99, 'ms', { baseline: baseline.p99 }),
    ];
  } finally {
    baselineServer.stop();
    serviceServer.stop();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
