/**
 * A soak of the embedded stack (`npm start` with `--trace-gc`): signed requests at a steady rate for a
 * while (a third `POST /v1/cashier/init`, two thirds `POST /v1/cashier/status`), then idle. From the
 * process's own GC trace: the longest pause and the heap after GC over time (the lowest heap after a
 * collection in each tenth of the run, and its slope in MB a minute, so a leak shows the day it
 * lands); from the requests: 5xx and p99 in the second and last tenth of the load (the first warms
 * the code up; latency must not grow with uptime). A smoke run's figures say nothing: too short. Targets: heap slope ≤ 1 MB/min, longest pause ≤ 100 ms, last/first p99 ≤ 1.5,
 * no 5xx.
 *   npx tsx bench/soak.ts [--minutes 10] [--idle-minutes 3] [--rate 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { freePort } from '../src/db/embedded-postgres.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { rssMb, startService } from './stack.ts';
import { percentile } from './support.ts';

/** One line of `--trace-gc`: when (ms since start), what kind, heap after (MB) and the pause (ms). */
interface GcEvent {
  at: number;
  kind: string;
  heapAfterMb: number;
  pauseMs: number;
}

const GC_LINE =
  /(\d+) ms: (Scavenge|Mark-Compact|Mark-Compact \(reduce\)|Minor Mark-Sweep|Mark-Sweep)[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB,(?: pooled: [\d.]+ MB,)? ([\d.]+) \/ [\d.]+ ms/;

export function parseGcTrace(text: string): GcEvent[] {
  const out: GcEvent[] = [];
  for (const line of text.split('\n')) {
    const m = GC_LINE.exec(line);
    if (m) out.push({ at: Number(m[1]), kind: m[2]!, heapAfterMb: Number(m[3]), pauseMs: Number(m[4]) });
  }
  return out;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: { minutes: { type: 'string' }, 'idle-minutes': { type: 'string' }, rate: { type: 'string' } },
  });
  const loadS = Number(values.minutes ?? 10) * 60;
  const idleS = Number(values['idle-minutes'] ?? 3) * 60;
  const rate = Number(values.rate ?? 30);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-soak-'));
  const service = await startService(
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, EMBEDDED_PG_PORT: String(await freePort()) },
    { nodeArgs: ['--trace-gc'] },
  );
  try {
    const { base_url: baseUrl, merchant } = service.devstack!;
    const call = async (target: string, body: unknown) => {
      const raw = JSON.stringify(body);
      const t0 = performance.now();
      const res = await fetch(`${baseUrl}${target}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signedHeaders(merchant.api_key, merchant.api_secret, { method: 'POST', target, body: raw }),
        },
        body: raw,
      });
      const json = (await res.json()) as { session?: string };
      return { status: res.status, ms: performance.now() - t0, session: json.session };
    };
    const sessions: string[] = [];
    const samples: { at: number; ms: number; status: number }[] = [];
    // Collections of start-up (the code loading) are not the soak's: only those from here on count.
    const gcBefore = parseGcTrace(service.stdout()).length;
    const start = performance.now();
    const rssStart = rssMb(service.pid);
    const inflight = new Set<Promise<void>>();
    for (let i = 0; performance.now() - start < loadS * 1000; i++) {
      const due = start + (i * 1000) / rate;
      if (due > performance.now()) await sleep(due - performance.now());
      const p = (async () => {
        const r =
          i % 3 === 0 || sessions.length === 0
            ? await call('/v1/cashier/init', {})
            : await call('/v1/cashier/status', { session: sessions[i % sessions.length] });
        if (r.session && sessions.length < 1000) sessions.push(r.session);
        samples.push({ at: performance.now() - start, ms: r.ms, status: r.status });
      })().catch(() => {
        samples.push({ at: performance.now() - start, ms: 0, status: 599 });
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await Promise.all(inflight);
    const loadEnd = performance.now();
    await sleep(idleS * 1000);
    const rssEnd = rssMb(service.pid);

    const gc = parseGcTrace(service.stdout()).slice(gcBefore);
    const major = gc.filter((e) => e.kind.startsWith('Mark'));
    const runMs = gc.length ? gc.at(-1)!.at - gc[0]!.at : 0;
    // The heap after GC: the lowest after any collection in each tenth of the run (minutes on x).
    const tenths: [number, number][] = [];
    for (let k = 0; k < 10 && gc.length; k++) {
      const from = gc[0]!.at + (runMs * k) / 10;
      const inTenth = gc.filter((e) => e.at >= from && e.at <= from + runMs / 10);
      if (inTenth.length) tenths.push([from / 60_000, Math.min(...inTenth.map((e) => e.heapAfterMb))]);
    }
    const heapSlope = slope(tenths);
    const longestPause = Math.max(0, ...gc.map((e) => e.pauseMs));
    const longestMajor = Math.max(0, ...major.map((e) => e.pauseMs));
    const loadMs = loadEnd - start;
    const p99Of = (from: number, to: number) =>
      percentile(
        samples
          .filter((s) => s.at >= from && s.at < to && s.status < 500)
          .map((s) => s.ms)
          .sort((a, b) => a - b),
        0.99,
      );
    // The first tenth warms the code up (compiles, caches): the baseline is the second.
    const firstP99 = p99Of(loadMs / 10, (loadMs * 2) / 10);
    const lastP99 = p99Of((loadMs * 9) / 10, loadMs);
    const errors = samples.filter((s) => s.status >= 500).length;

    console.log(
      `soak: ${samples.length} requests in ${(loadMs / 1000).toFixed(0)} s at ${rate}/s, then ${idleS.toFixed(0)} s idle; ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    console.log(
      `  5xx: ${errors}; p99 second tenth ${firstP99.toFixed(1)} ms, last tenth ${lastP99.toFixed(1)} ms`,
    );
    console.log(
      `  GC: ${gc.length} collections, ${major.length} major; longest pause ${longestPause.toFixed(1)} ms (major ${longestMajor.toFixed(1)} ms)`,
    );
    console.log(
      `  heap after GC: ${tenths.map(([, mb]) => mb.toFixed(1)).join(' → ')} MB; slope ${heapSlope.toFixed(2)} MB/min`,
    );
    console.log(`  RSS ${rssStart.toFixed(0)} → ${rssEnd.toFixed(0)} MB`);
    return [
      figure('soak: heap after GC, slope', heapSlope, 'MB/min', {
        target: { of: 'value', op: '≤', bound: 1 },
      }),
      figure('soak: heap after GC, at the end', tenths.at(-1)?.[1] ?? 0, 'MB'),
      figure('soak: longest GC pause', longestPause, 'ms', { target: { of: 'value', op: '≤', bound: 100 } }),
      figure('soak: p99, last tenth vs second', lastP99, 'ms', {
        baseline: firstP99,
        target: { of: 'ratio', op: '≤', bound: 1.5 },
      }),
      figure('soak: 5xx', errors, '', { target: { of: 'value', op: '≤', bound: 0 } }),
    ];
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
