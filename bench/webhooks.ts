/**
 * Webhook delivery throughput and enqueue-to-delivery latency, next to graphile-worker's raw job
 * throughput (a no-op task) measured in the same run on the same embedded PostgreSQL with the same
 * worker concurrency and the same shape of load: N jobs added by 8 concurrent committers, each in its
 * own transaction, while the worker runs. A local node:http receiver answers 200 at once.
 *   npx tsx bench/webhooks.ts [--deliveries 2000] [--concurrency 8]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Logger, run, type TaskList } from 'graphile-worker';
import { deliverWebhookTask } from '../daemons/deliver-webhook.ts';
import { createApp } from '../src/app.ts';
import { networkFileSchema } from '../src/chains/networks.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/lib/logger.ts';
import { enqueueWebhook } from '../src/modules/webhook/outbox.ts';
import { addJob } from '../src/worker/jobs.ts';
import { percentile } from './support.ts';

const ADDERS = 8;
const UNLOADED_SAMPLES = 100;
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

export async function main(argv = process.argv.slice(2)) {
  const { values } = parseArgs({
    args: argv,
    options: { deliveries: { type: 'string' }, concurrency: { type: 'string' } },
  });
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
  const app = await createApp({ config, networks, logger: createLogger('error') });

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

  let noops = 0;
  const taskList: TaskList = {
    noop: async () => {
      noops++;
    },
    deliver_webhook: deliverWebhookTask({ webhooks: app.services.webhooks, fork: () => app.fork() }),
  };
  const runner = await run({
    connectionString: url,
    concurrency,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList,
    logger: quiet,
  });

  // Warm-up: connections, JIT, prepared plans.
  await addConcurrently(100, () => addJob(app.fork(), 'noop', {}));
  await waitFor(() => noops === 100);
  noops = 0;

  // Baseline: graphile-worker with a task that does nothing.
  let t0 = performance.now();
  await addConcurrently(n, () => addJob(app.fork(), 'noop', {}));
  await waitFor(() => noops === n);
  const baselineRate = n / ((performance.now() - t0) / 1000);

  // Webhooks under load: the same shape, each add being a whole enqueueWebhook transaction.
  const committed = new Map<string, number>();
  const enqueue = async (subject: string) => {
    const id = await app.fork().transactional((tx) =>
      enqueueWebhook(tx, {
        merchantId: merchant.id,
        event: 'payment.completed',
        subjectId: subject,
        body: { session_id: subject, status: 'completed', amount: '125.5', token: 'USDT', network: 'eth' },
      }),
    );
    committed.set(id!, performance.now());
    return id!;
  };
  t0 = performance.now();
  await addConcurrently(n, async (i) => void (await enqueue(`cs_load_${i}`)));
  await waitFor(() => arrived.size === n);
  const webhookRate = n / ((performance.now() - t0) / 1000);
  const loaded = [...committed].map(([id, at]) => (arrived.get(id) ?? Number.NaN) - at).sort((a, b) => a - b);

  // Unloaded latency: one delivery at a time.
  const unloaded: number[] = [];
  for (let i = 0; i < UNLOADED_SAMPLES; i++) {
    const id = await enqueue(`cs_single_${i}`);
    await waitFor(() => arrived.has(id));
    unloaded.push(arrived.get(id)! - committed.get(id)!);
  }
  unloaded.sort((a, b) => a - b);
  await runner.stop();

  const ms = (v: number) => `${v.toFixed(1).padStart(7)} ms`;
  console.log(
    `webhook deliveries vs graphile-worker no-op jobs (${n} each, worker concurrency ${concurrency}, ${ADDERS} concurrent committers, ${os.cpus().length} cores)`,
  );
  console.log(
    `${'baseline: graphile-worker no-op task'.padEnd(48)} ${baselineRate.toFixed(0).padStart(7)} jobs/s`,
  );
  console.log(
    `${'webhooks: enqueue → signed POST → recorded'.padEnd(48)} ${webhookRate.toFixed(0).padStart(7)} deliveries/s`,
  );
  console.log(`throughput ratio webhooks/baseline: ${(webhookRate / baselineRate).toFixed(2)}`);
  console.log(
    `enqueue-to-delivery latency under load:      p50 ${ms(percentile(loaded, 0.5))}   p95 ${ms(percentile(loaded, 0.95))}`,
  );
  console.log(
    `enqueue-to-delivery latency, one at a time:  p50 ${ms(percentile(unloaded, 0.5))}   p95 ${ms(percentile(unloaded, 0.95))}`,
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
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
