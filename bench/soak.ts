/**
 * A soak of the embedded stack (`npm start` with `--trace-gc`): signed requests at a steady rate for a
 * while (a third `POST /v1/cashier/init`, two thirds `POST /v1/cashier/status`), then idle. From the
 * process's own GC trace: the longest pause V8 took; through its inspector, ten times over the run, the
 * heap after a full collection (what is live) and its slope in MB a minute, so a leak shows the day it
 * lands; from the requests: 5xx and p99 in the second and last tenth of the load (the first warms
 * the code up; latency must not grow with uptime). A smoke run's figures say nothing: too short. Targets: heap slope ≤ 1 MB/min, longest pause ≤ 100 ms, last/first p99 ≤ 1.5,
 * no 5xx.
 *   npx tsx bench/soak.ts [--minutes 10] [--idle-minutes 3] [--rate 30] [--samples 10] [--reuse]
 *                         [--v8=--max-semi-space-size=32 ...] [--gc-log FILE]
 * `--v8` adds a flag to the service's node (repeatable: comparing GC settings); `--gc-log` writes the
 * run's GC trace lines to FILE.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { freePort } from '../src/db/embedded-postgres.ts';
import { signedHeaders } from '../src/modules/auth/request-signing.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { rssMb, stackDir, startService } from './stack.ts';
import { percentile } from './support.ts';

/** One line of `--trace-gc`: when (ms since start), what kind, heap after (MB) and the pause (ms). */
interface GcEvent {
  at: number;
  kind: string;
  heapAfterMb: number;
  pauseMs: number;
  /** Asked for (the inspector's full collections), not V8's own. */
  forced: boolean;
}

const GC_LINE =
  /(\d+) ms: (Scavenge|Mark-Compact|Mark-Compact \(reduce\)|Minor Mark-Sweep|Mark-Sweep)[^\d]*[\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB,(?: pooled: [\d.]+ MB,)? ([\d.]+) \/ [\d.]+ ms/;

export function parseGcTrace(text: string): GcEvent[] {
  const out: GcEvent[] = [];
  for (const line of text.split('\n')) {
    const m = GC_LINE.exec(line);
    if (m)
      out.push({
        at: Number(m[1]),
        kind: m[2]!,
        heapAfterMb: Number(m[3]),
        pauseMs: Number(m[4]),
        // HeapProfiler.collectGarbage is a low-memory notification to V8.
        forced: /low memory notification/.test(line),
      });
  }
  return out;
}

/**
 * The service's V8 through its inspector (`--inspect=127.0.0.1:0`): a full collection, then the heap
 * in use, which is what is live — the heap after GC, without waiting for V8 to run a major one.
 */
async function heapInspector(log: () => string) {
  const url = /ws:\/\/[^\s]+/.exec(log())?.[0];
  if (!url) throw new Error('the service printed no inspector address');
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  });
  const send = (method: string) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method }));
    });
  return {
    async liveHeapMb(): Promise<number> {
      await send('HeapProfiler.collectGarbage');
      return ((await send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize / 2 ** 20;
    },
    close: () => socket.close(),
  };
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
    options: {
      minutes: { type: 'string' },
      'idle-minutes': { type: 'string' },
      rate: { type: 'string' },
      samples: { type: 'string' },
      reuse: { type: 'boolean' },
      v8: { type: 'string', multiple: true },
      'gc-log': { type: 'string' },
    },
  });
  const loadS = Number(values.minutes ?? 10) * 60;
  const idleS = Number(values['idle-minutes'] ?? 3) * 60;
  const rate = Number(values.rate ?? 30);
  const heapSamples = Number(values.samples ?? 10);
  const { dir, done } = stackDir(values.reuse ?? false, 'bench-soak-');
  const service = await startService(
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, EMBEDDED_PG_PORT: String(await freePort()) },
    { nodeArgs: ['--trace-gc', '--inspect=127.0.0.1:0', ...(values.v8 ?? [])] },
  );
  const inspector = await heapInspector(service.log);
  try {
    const { base_url: baseUrl, merchant } = service.devstack!;
    let firstError = '';
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
      if (res.status >= 500 && !firstError) firstError = `${res.status} ${target}: ${JSON.stringify(json)}`;
      return { status: res.status, ms: performance.now() - t0, session: json.session };
    };
    const sessions: string[] = [];
    const samples: { at: number; ms: number; status: number }[] = [];
    const overlapsForced = (s: { at: number; ms: number }) =>
      forcedAt.some(([a, b]) => s.at >= a && s.at - s.ms <= b);
    // Collections of start-up (the code loading) are not the soak's: only those from here on count.
    const gcBefore = parseGcTrace(service.stdout()).length;
    const totalS = loadS + idleS;
    const start = performance.now();
    // The live heap, `--samples` times over the run (each a forced full collection, left out of the pauses).
    const heap: [number, number][] = [];
    /** When the forced collections ran: requests in flight then are left out of the latency. */
    const forcedAt: [number, number][] = [];
    const sampling = (async () => {
      for (let k = 1; k <= heapSamples; k++) {
        const due = start + (totalS * 1000 * k) / heapSamples;
        await sleep(Math.max(0, due - performance.now()));
        const t0 = performance.now() - start;
        heap.push([t0 / 60_000, await inspector.liveHeapMb()]);
        forcedAt.push([t0, performance.now() - start]);
      }
    })();
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
      })().catch((error: unknown) => {
        firstError ||= String(error);
        samples.push({ at: performance.now() - start, ms: 0, status: 599 });
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    await Promise.all(inflight);
    const loadEnd = performance.now();
    await sampling;
    const rssEnd = rssMb(service.pid);

    const gc = parseGcTrace(service.stdout())
      .slice(gcBefore)
      .filter((e) => !e.forced);
    const major = gc.filter((e) => e.kind.startsWith('Mark'));
    if (values['gc-log'])
      writeFileSync(
        values['gc-log'],
        `${service
          .stdout()
          .split('\n')
          .filter((l) => /\d+ ms: /.test(l))
          .join('\n')}\n`,
      );
    const heapSlope = slope(heap);
    const longestPause = Math.max(0, ...gc.map((e) => e.pauseMs));
    const longestMajor = Math.max(0, ...major.map((e) => e.pauseMs));
    const loadMs = loadEnd - start;
    /** p99 of the requests that ended in [from, to); NaN when none did (the row is then not met). */
    const p99Of = (from: number, to: number) => {
      const ms = samples
        .filter((s) => s.at >= from && s.at < to && s.status < 500 && !overlapsForced(s))
        .map((s) => s.ms)
        .sort((a, b) => a - b);
      return ms.length ? percentile(ms, 0.99) : Number.NaN;
    };
    // The first tenth warms the code up (compiles, caches): the baseline is the second.
    const second = p99Of(loadMs / 10, (loadMs * 2) / 10);
    const firstP99 = Number.isNaN(second) ? p99Of(0, (loadMs * 2) / 10) : second;
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
      `  heap after a full GC: ${heap.map(([, mb]) => mb.toFixed(1)).join(' → ')} MB; slope ${heapSlope.toFixed(2)} MB/min`,
    );
    console.log(`  RSS ${rssStart.toFixed(0)} → ${rssEnd.toFixed(0)} MB`);
    return [
      figure('soak: heap after GC, slope', heapSlope, 'MB/min', {
        target: { of: 'value', op: '≤', bound: 1 },
      }),
      figure('soak: heap after GC, at the end', heap.at(-1)?.[1] ?? 0, 'MB'),
      figure('soak: longest GC pause', longestPause, 'ms', { target: { of: 'value', op: '≤', bound: 100 } }),
      figure('soak: p99, last tenth vs second', lastP99, 'ms', {
        baseline: firstP99,
        target: { of: 'ratio', op: '≤', bound: 1.5 },
      }),
      figure('soak: 5xx', errors, '', { target: { of: 'value', op: '≤', bound: 0 } }),
    ];
  } finally {
    inspector.close();
    await service.stop();
    done();
  }
}

runIfMain(import.meta.url, main);
