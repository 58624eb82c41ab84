/**
 * Webhook delivery throughput and enqueue-to-delivery latency, next to graphile-worker's raw job
 * throughput (a no-op task) measured in the same run on the same embedded PostgreSQL with the same
 * worker concurrency and the same shape of load: N jobs added by 8 concurrent committers, each in its
 * own transaction (a webhook is enqueued with the business change that causes it; the no-op job is
 * added in a transaction too), while the worker runs. A local node:http receiver answers 200 at once.
 * Deliveries are sent in batches (claim.ts, recorder.ts): what one took 11 ms for before — a job,
 * a claim statement, a fresh connection, a record statement per delivery — is shared by a batch; and
 * an event adds no job to its transaction: the worker hears the delivery announced and queues a pump
 * run (waker.ts), as a worker process does. Then
 * fairness: N/2 deliveries spread over healthy merchants and one whose endpoint sleeps 10 s, and the
 * healthy merchants' latency while it sleeps.
 *   npx tsx bench/webhooks.ts [--deliveries 2000] [--concurrency 8] [--unloaded 100]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Logger, run, type TaskList } from 'graphile-worker';
import { z } from 'zod';
import { createApp } from '../src/app.ts';
import { networkFileSchema } from '../src/chains/networks.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { addJob, defineJob, jobTask, taskListOf } from '../src/db/jobs.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/lib/logger.ts';
import { enqueueWebhook } from '../src/modules/webhook/outbox.ts';
import { PER_MERCHANT_IN_FLIGHT } from '../src/modules/webhook/schedule.ts';
import { deliverWebhookTask } from '../src/modules/webhook/webhook.tasks.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { percentile } from './support.ts';

const ADDERS = 8;
/** Merchants with a fast endpoint in the fairness run, beside the one whose endpoint sleeps. */
const HEALTHY = 4;
/** How long the sleeping endpoint takes to answer (the attempt timeout is 10 s too). */
const SLOW_MS = 10_000;
const quiet = new Logger(() => () => {});

/** Runs `count` adds from ADDERS concurrent loops; resolves when all are committed. */
async function addConcurrently(count: number, add: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: ADDERS }, async () => {
      while (next < count) await add(next++);
    }),
  );
}

function waitFor(check: () => boolean, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (check()) return resolve();
      if (Date.now() > deadline) return reject(new Error('benchmark timed out'));
      setTimeout(tick, 2);
    };
    tick();
  });
}

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: {
      deliveries: { type: 'string' },
      concurrency: { type: 'string' },
      unloaded: { type: 'string' },
    },
  });
  const unloadedSamples = Number(values.unloaded ?? 100);
  const n = Number(values.deliveries ?? 2000);
  const concurrency = Number(values.concurrency ?? 8);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  const url = await db.createDatabase('bench');
  await migrate(url);
  const config = loadConfig({
    DATABASE_URL: url,
    NETWORKS_FILE: '(bench)',
    SECRETS_KEY: randomBytes(32).toString('hex'),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'error',
  });
  const networks = networkFileSchema.parse({
    networks: [{ id: 'eth', kind: 'evm', chainId: 31337, rpcUrls: ['http://127.0.0.1:9'], tokens: [] }],
  });
  const app = await createApp({
    config,
    networks,
    logger: createLogger(process.env.BENCH_LOG === '1' ? 'warn' : 'error'),
  });

  // The receiver: notes when each delivery (X-Webhook-Id) first arrived.
  const arrived = new Map<string, number>();
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-webhook-id']);
      if (!arrived.has(id)) arrived.set(id, performance.now());
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const em = app.fork();
  const merchant = await app.services.merchants.create(em, {
    name: 'bench',
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
  });
  await app.services.merchants.issueKey(em, merchant.id);
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const merchantWith = async (webhookUrl: string) => {
    const m = await app.services.merchants.create(em, { name: 'bench', webhookUrl });
    await app.services.merchants.issueKey(em, m.id);
    return m.id;
  };

  let noops = 0;
  const noop = defineJob({ name: 'noop', payload: z.object({}) });
  const taskList: TaskList = taskListOf([
    jobTask(noop, async () => {
      noops++;
    }),
    deliverWebhookTask({ webhooks: app.services.webhooks, fork: () => app.fork() }),
  ]);
  const runner = await run({
    connectionString: url,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList,
    logger: quiet,
  });

  // As in a worker process: announced deliveries get pump runs queued.
  const waker = await app.services.webhooks.wake(() => app.fork());

  // Warm-up: connections, JIT, prepared plans.
  await addConcurrently(100, () => addJob(app.fork(), noop, {}));
  await waitFor(() => noops === 100);
  noops = 0;

  // Baseline: graphile-worker with a task that does nothing.
  let t0 = performance.now();
  // Each job is added in a transaction of its own, as a business change adds its webhook.
  await addConcurrently(n, () => app.fork().transactional((tx) => addJob(tx, noop, {})));
  await waitFor(() => noops === n);
  const baselineRate = n / ((performance.now() - t0) / 1000);

  // Webhooks under load: the same shape, each add being a whole enqueueWebhook transaction; done
  // when every delivery has arrived and its outcome is recorded.
  const committed = new Map<string, number>();
  const enqueue = async (subject: string, merchantId = merchant.id) => {
    const id = await app.fork().transactional((tx) =>
      enqueueWebhook(tx, {
        merchantId,
        event: 'payment.completed',
        subjectId: subject,
        body: { session_id: subject, status: 'completed', amount: '125.5', token: 'USDT', network: 'eth' },
      }),
    );
    committed.set(id!, performance.now());
    return id!;
  };
  const delivered = async () =>
    (
      await app
        .fork()
        .execute<{ n: number }[]>(
          `select count(*)::int as n from webhook_deliveries where status = 'delivered'`,
        )
    )[0]!.n;
  t0 = performance.now();
  await addConcurrently(n, async (i) => void (await enqueue(`cs_load_${i}`)));
  const tEnq = performance.now();
  await waitFor(() => arrived.size === n);
  while ((await delivered()) < n) await new Promise((r) => setTimeout(r, 5));
  const drainMs = performance.now() - tEnq;
  const webhookRate = n / ((performance.now() - t0) / 1000);
  const loaded = [...committed].map(([id, at]) => (arrived.get(id) ?? Number.NaN) - at).sort((a, b) => a - b);

  // Unloaded latency: one delivery at a time.
  const unloaded: number[] = [];
  for (let i = 0; i < unloadedSamples; i++) {
    const id = await enqueue(`cs_single_${i}`);
    await waitFor(() => arrived.has(id));
    unloaded.push(arrived.get(id)! - committed.get(id)!);
  }
  unloaded.sort((a, b) => a - b);

  // Fairness: the same load spread over HEALTHY merchants and one whose endpoint sleeps 10 s before
  // answering (one delivery in HEALTHY + 1 goes to it); latency of the healthy ones.
  let slowOpen = 0;
  let slowPeak = 0;
  let slowSeen = 0;
  const sleeper = createServer((req, res) => {
    req.resume();
    slowSeen++;
    slowPeak = Math.max(slowPeak, ++slowOpen);
    const timer = setTimeout(() => res.writeHead(200).end(), SLOW_MS);
    res.on('close', () => {
      slowOpen--;
      clearTimeout(timer);
    });
  });
  await new Promise<void>((r) => sleeper.listen(0, '127.0.0.1', r));
  const healthy: string[] = [];
  for (let i = 0; i < HEALTHY; i++) healthy.push(await merchantWith(hookUrl));
  const slow = await merchantWith(`http://127.0.0.1:${(sleeper.address() as AddressInfo).port}/hook`);
  const fairIds: string[] = [];
  const fairCount = Math.max(HEALTHY + 1, Math.floor(n / 2));
  await addConcurrently(fairCount, async (i) => {
    const to = i % (HEALTHY + 1);
    if (to === HEALTHY) await enqueue(`cs_slow_${i}`, slow);
    else fairIds.push(await enqueue(`cs_fair_${i}`, healthy[to]!));
  });
  await waitFor(() => fairIds.every((id) => arrived.has(id)));
  const fair = fairIds.map((id) => arrived.get(id)! - committed.get(id)!).sort((a, b) => a - b);
  // Cut the sleeping endpoint's requests so the attempts left with it end (as failures) at once.
  sleeper.closeAllConnections();
  await waker.stop();
  await runner.stop();
  await app.services.webhooks.close();
  sleeper.close();

  const ms = (v: number) => `${v.toFixed(1).padStart(7)} ms`;
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const ratio = webhookRate / baselineRate;
  const p95 = percentile(loaded, 0.95);
  const fairP95 = percentile(fair, 0.95);
  console.log(
    `webhook deliveries vs graphile-worker no-op jobs (${n} each, worker concurrency ${concurrency}, ${ADDERS} concurrent committers, ${os.cpus().length} cores)`,
  );
  console.log(
    `${'baseline: graphile-worker no-op task'.padEnd(48)} ${baselineRate.toFixed(0).padStart(7)} jobs/s`,
  );
  console.log(
    `${'webhooks: enqueue → signed POST → recorded'.padEnd(48)} ${webhookRate.toFixed(0).padStart(7)} deliveries/s`,
  );
  console.log(`throughput ratio webhooks/baseline: ${ratio.toFixed(2)} (target ≥ 0.5: ${met(ratio >= 0.5)})`);
  console.log(
    `  (the last delivery was recorded ${drainMs.toFixed(0)} ms after the last enqueue committed: delivery keeps pace, the enqueue transactions set the rate)`,
  );
  console.log(
    `enqueue-to-delivery latency under load:      p50 ${ms(percentile(loaded, 0.5))}   p95 ${ms(p95)} (target p95 < 500 ms: ${met(p95 < 500)})`,
  );
  console.log(
    `enqueue-to-delivery latency, one at a time:  p50 ${ms(percentile(unloaded, 0.5))}   p95 ${ms(percentile(unloaded, 0.95))}`,
  );
  console.log(
    `fairness (${fairCount} deliveries over ${HEALTHY} healthy merchants + 1 whose endpoint sleeps ${SLOW_MS / 1000} s):`,
  );
  console.log(
    `  healthy enqueue-to-delivery:               p50 ${ms(percentile(fair, 0.5))}   p95 ${ms(fairP95)} (target p95 < 500 ms: ${met(fairP95 < 500)})`,
  );
  console.log(
    `  sleeping endpoint: ${slowSeen} requests received, at most ${slowPeak} open at once (per-merchant cap ${PER_MERCHANT_IN_FLIGHT})`,
  );

  await app.close();
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
  // Pools finish closing their sockets after close() resolves; stopping the server under them would
  // surface as an unhandled pool error.
  for (let i = 0; i < 100 && process.getActiveResourcesInfo().includes('TCPSocketWrap'); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
  return [
    figure('delivery throughput', webhookRate, 'deliveries/s', {
      baseline: baselineRate,
      target: { of: 'ratio', op: '≥', bound: 0.5 },
    }),
    figure('enqueue → delivery p95 under load', p95, 'ms', { target: { of: 'value', op: '<', bound: 500 } }),
    figure('healthy merchants p95 beside a sleeping one', fairP95, 'ms', {
      target: { of: 'value', op: '<', bound: 500 },
    }),
  ];
}

runIfMain(import.meta.url, main);
