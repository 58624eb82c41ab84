/**
 * Signed-request throughput and latency for a read route (`POST /v1/cashier/status`), next to a
 * baseline measured in the same run on the same PostgreSQL: a bare node:http server doing one INSERT
 * per request. Prints both, the throughput ratio (target: at least 0.8) and the p99 ratio (target:
 * at most 1.2), and the CPU each side spends per request.
 *   npx tsx bench/http.ts [--requests 4000] [--concurrency 32] [--rounds 4] [--profile DIR]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { script as benchScript, percentile, postmasterPid, treeCpu } from './support.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

/** Issue #30's targets: throughput at least 0.8 of the baseline's, p99 at most 1.2 times its p99. */
const THROUGHPUT_TARGET = 0.8;
const P99_TARGET = 1.2;

/** Sends `requests` requests, `concurrency` at a time; each one's latency (ms) and the wall time (s). */
async function load(requests: number, concurrency: number, send: () => Promise<number>) {
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
  return { latencies, seconds: (performance.now() - started) / 1000 };
}

function summary(latencies: number[], seconds: number): Result {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { rps: sorted.length / seconds, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

/** The options of package.json's `start` script (its loader and V8 flags, not its entry file). */
function startFlags(): string[] {
  return benchScript('start').args.filter((arg) => arg.startsWith('--'));
}

/** Starts one benchmark server in its own process and resolves with the JSON line it prints. */
function spawnServer(kind: 'service' | 'baseline', databaseUrl: string, profileDir?: string) {
  // Node itself (not a wrapper), so that killing the child stops the server; both servers run their
  // TypeScript as `npm start` runs the service (Node's own type stripping, no tsx transform, whose
  // helpers would be counted in the service's CPU and not in production's).
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  const script = path.join(root, 'bench/http-server.ts');
  // The service runs with the V8 flags `npm start` gives it, as deployed.
  const flags = kind === 'service' ? startFlags() : startFlags().filter((f) => !/^--(max|min)-/.test(f));
  const child = spawn(process.execPath, [...flags, ...profile, script, kind], {
    env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: databaseUrl },
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise<{ info: Record<string, string>; pid: number; stop: () => Promise<void> }>(
    (resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((l) => l.startsWith('{'));
        // SIGINT lets a profiled server write its profile (it exits cleanly on it).
        const stop = () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill(profileDir ? 'SIGINT' : 'SIGKILL');
          });
        if (line) resolve({ info: JSON.parse(line), pid: child.pid!, stop });
      });
      child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
    },
  );
}

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: {
      requests: { type: 'string' },
      concurrency: { type: 'string' },
      rounds: { type: 'string' },
      profile: { type: 'string' },
    },
  });
  const requests = Number(values.requests ?? 4000);
  const concurrency = Number(values.concurrency ?? 32);
  const rounds = Math.max(1, Number(values.rounds ?? 4));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-http-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  const url = await db.createDatabase('bench');
  await migrate(url);
  const profileDir = (kind: string) => values.profile && path.resolve(values.profile, kind);
  const baselineServer = await spawnServer('baseline', url, profileDir('baseline'));
  // --profile DIR: each server writes a V8 CPU profile under DIR/<kind> when stopped.
  const serviceServer = await spawnServer('service', url, profileDir('service'));
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
    // Requests are signed before each timed round, not inside it: the load generator shares the two
    // cores with the servers, and its HMAC per request would be counted against the service's share.
    let signedHeadersList: Record<string, string>[] = [];
    let nextSigned = 0;
    const presign = (n: number) => {
      signedHeadersList = Array.from({ length: n }, () => ({
        'content-type': 'application/json',
        ...signedHeaders(keyId!, secret!, { method: 'POST', target, body: statusBody }),
      }));
      nextSigned = 0;
    };
    const signed = async () => {
      const res = await fetch(`${serviceUrl}${target}`, {
        method: 'POST',
        headers: signedHeadersList[nextSigned++],
        body: statusBody,
      });
      await res.arrayBuffer();
      return res.status;
    };
    const warm = Math.min(500, Math.floor(requests / 4));
    await load(warm, concurrency, bare);
    presign(warm);
    await load(warm, concurrency, signed);
    // CPU ms so far of the load generator, each server's process tree and this run's PostgreSQL
    // (Linux /proc; 0 elsewhere). Other processes on a shared machine are not counted.
    const postmaster = postmasterPid(path.join(dir, 'pg'));
    const cpu = () => ({
      load: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
      pg: postmaster ? treeCpu(postmaster) : 0,
      bare: treeCpu(baselineServer.pid),
      svc: treeCpu(serviceServer.pid),
    });
    // The two servers take turns in rounds (B S S B B S …), so that a change in the machine's load
    // during the run weighs on both alike instead of on whichever ran second.
    const base = { latencies: [] as number[], seconds: 0, cpu: { server: 0, pg: 0, load: 0 } };
    const svc = { latencies: [] as number[], seconds: 0, cpu: { server: 0, pg: 0, load: 0 } };
    const perRound = Math.ceil(requests / rounds);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['bare', 'svc'] as const) : (['svc', 'bare'] as const);
      for (const kind of order) {
        const into = kind === 'bare' ? base : svc;
        if (kind === 'svc') presign(perRound);
        const before = cpu();
        const run = await load(perRound, concurrency, kind === 'bare' ? bare : signed);
        const after = cpu();
        into.latencies.push(...run.latencies);
        into.seconds += run.seconds;
        into.cpu.server += after[kind] - before[kind];
        into.cpu.pg += after.pg - before.pg;
        into.cpu.load += after.load - before.load;
      }
    }
    const baseline = summary(base.latencies, base.seconds);
    const service = summary(svc.latencies, svc.seconds);
    const perRequest = (ms: number) => `${((ms / (perRound * rounds)) * 1000).toFixed(0)} µs`;
    const throughput = service.rps / baseline.rps;
    const p99 = service.p99 / baseline.p99;

    const row = (name: string, r: Result) =>
      `${name.padEnd(52)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms`;
    console.log(
      `signed read route vs bare node:http + 1 INSERT (${requests} requests each in ${rounds} alternating rounds, concurrency ${concurrency}, ${os.cpus().length} cores; each server in its own process)`,
    );
    console.log(row('baseline: node:http + one PostgreSQL INSERT', baseline));
    console.log(row('service: signed POST /v1/cashier/status', service));
    console.log(
      `throughput ratio service/baseline: ${throughput.toFixed(2)} (target >= ${THROUGHPUT_TARGET}: ${throughput >= THROUGHPUT_TARGET ? 'met' : 'NOT met'}); ` +
        `p99 service/baseline: ${p99.toFixed(2)} (target <= ${P99_TARGET}: ${p99 <= P99_TARGET ? 'met' : 'NOT met'})`,
    );
    if (base.cpu.server > 0) {
      console.log(
        `CPU per request: baseline server ${perRequest(base.cpu.server)} + PostgreSQL ${perRequest(base.cpu.pg)}; ` +
          `service server ${perRequest(svc.cpu.server)} + PostgreSQL ${perRequest(svc.cpu.pg)}; ` +
          `load generator ${perRequest(base.cpu.load)} vs ${perRequest(svc.cpu.load)}`,
      );
    }
    return [
      figure('signed read route throughput', service.rps, 'req/s', {
        baseline: baseline.rps,
        target: { of: 'ratio', op: '≥', bound: THROUGHPUT_TARGET },
      }),
      figure('signed read route p99', service.p99, 'ms', {
        baseline: baseline.p99,
        target: { of: 'ratio', op: '≤', bound: P99_TARGET },
      }),
      figure('signed read route server CPU', (svc.cpu.server / (perRound * rounds)) * 1000, 'µs/req', {
        baseline: (base.cpu.server / (perRound * rounds)) * 1000,
      }),
    ];
  } finally {
    await Promise.all([baselineServer.stop(), serviceServer.stop()]);
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
