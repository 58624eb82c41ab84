import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger, makeWorkerUtils, run, runOnce, type TaskList, type WorkerUtils } from 'graphile-worker';
import { taskListOf } from '../../src/db/jobs.ts';
import { PubSub } from '../../src/db/pubsub.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { DeliverOutcome } from '../../src/modules/webhook/delivery.ts';
import { queuePump } from '../../src/modules/webhook/outbox.ts';
import { WebhookService, type WebhookServiceOptions } from '../../src/modules/webhook/webhook.service.ts';
import { deliverWebhookTask, sweepWebhooksTask } from '../../src/modules/webhook/webhook.tasks.ts';
import type { TestApp } from '../support/app.ts';

/** One request as the receiver saw it. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  method: string;
  url: string;
  at: number;
}

/** What the receiver answers: a status, or `hold` (never answer until the socket dies). */
export type Answer = number | 'hold' | ((req: Received) => number | 'hold');

/** A real HTTP receiver on loopback that records every request. */
export async function startReceiver(answer: Answer = 200) {
  const requests: Received[] = [];
  const waiters: (() => void)[] = [];
  let current = answer;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        method: req.method ?? '',
        url: req.url ?? '',
        at: Date.now(),
      };
      requests.push(received);
      for (const w of waiters.splice(0)) w();
      const a = typeof current === 'function' ? current(received) : current;
      if (a === 'hold') return;
      res.writeHead(a, { 'content-type': 'text/plain' }).end(`answer ${a}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    requests,
    port,
    url: `http://127.0.0.1:${port}/hook`,
    set answer(a: Answer) {
      current = a;
    },
    /** Resolves once `n` requests have arrived. */
    async waitFor(n: number, timeoutMs = 10_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver: ${requests.length} of ${n} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    /** Cuts the open connections (held requests end with a reset); still accepting new ones. */
    dropConnections(): void {
      server.closeAllConnections();
    },
    /** Stops accepting connections (connection refused) and drops open ones. */
    async down(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    /** Accepts connections again on the same port. */
    up(): Promise<void> {
      return new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The signature recomputed in the test itself (section 6.3), independent of the service code. */
export const expectedSignature = (secret: string, timestamp: string, body: string): string =>
  createHmac('sha256', secret).update(`${timestamp}\n${body}`).digest('hex');

/** A clock the test moves by hand; starts at real time and only ever runs ahead of it. */
export function manualClock(start = Date.now()) {
  let now = start;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const quietGraphile = new Logger(() => () => {});

/**
 * A webhook service with test deps (clock, timeout, resolver) and graphile-worker running just the
 * webhook tasks against the test database. `advance(ms)` moves the clock and makes jobs due by the
 * moved clock due for graphile-worker too, so retries run without waiting.
 */
export async function webhookWorker(t: TestApp, options: Partial<WebhookServiceOptions> = {}) {
  const clock = manualClock();
  // Its own publish/subscribe: notices cross between it and the API as between two processes.
  const pubsub = new PubSub({ databaseUrl: t.config.databaseUrl!, logger: createLogger('error') });
  const service = new WebhookService({
    secretsKey: t.config.secretsKey!,
    allowPrivate: true,
    logger: createLogger('error'),
    pubsub,
    now: clock.now,
    ...options,
  });
  // Every outcome of the delivery task, so tests can tell "ran and did nothing" from "never ran".
  const outcomes: DeliverOutcome[] = [];
  // And each run: its delivery (null for a pump), when it started, what became of it.
  const runs: { id: string | null; started: number; outcome: DeliverOutcome }[] = [];
  const recording: WebhookService = Object.create(service);
  recording.deliver = async (em, id) => {
    const started = Date.now();
    const outcome = await service.deliver(em, id);
    outcomes.push(outcome);
    runs.push({ id, started, outcome });
    return outcome;
  };
  const deps = { webhooks: recording, fork: () => t.app.fork() };
  const taskList: TaskList = taskListOf([deliverWebhookTask(deps), sweepWebhooksTask(deps)]);
  const utils: WorkerUtils = await makeWorkerUtils({
    connectionString: t.config.databaseUrl,
    logger: quietGraphile,
  });
  const connectionString = t.config.databaseUrl!;
  return {
    service,
    clock,
    outcomes,
    runs,
    quietLogger: quietGraphile,
    taskList,
    utils,
    /**
     * Runs every job that is due now, until none is left; first queues a pump run, as a worker's waker
     * does for a new delivery (no waker runs here: tests that drive a graphile-worker runner start one,
     * `service.wake`). `wake: false` runs only the jobs there are (a retry's, a re-queued one).
     */
    async runDue({ wake = true } = {}) {
      if (wake) await queuePump(t.app.fork());
      await runOnce({ connectionString, taskList, noHandleSignals: true, logger: quietGraphile });
    },
    /** Runs these tasks in a graphile-worker runner with a waker, as a worker process does, until `stop`. */
    async startRunner({
      concurrency,
      pollInterval = 60_000,
    }: {
      concurrency: number;
      pollInterval?: number;
    }) {
      const runner = await run({
        connectionString,
        concurrency,
        noHandleSignals: true,
        pollInterval,
        taskList,
        logger: quietGraphile,
      });
      const waker = await service.wake(() => t.app.fork());
      return {
        async stop() {
          await waker.stop();
          await runner.stop();
        },
      };
    },
    /** Moves the clock; jobs scheduled at or before the new time become due. */
    async advance(ms: number) {
      clock.advance(ms);
      await this.makeDue(new Date(clock.now()));
    },
    /** Makes every unlocked job scheduled up to `until` runnable now. */
    async makeDue(until: Date) {
      const rows = await t.app
        .fork()
        .execute<{ id: string }[]>(
          `select id from graphile_worker.jobs where locked_at is null and run_at <= ? and run_at > now()`,
          [until.toISOString()],
        );
      if (rows.length)
        await utils.rescheduleJobs(
          rows.map((r) => String(r.id)),
          { runAt: new Date() },
        );
    },
    async close() {
      await utils.release();
      await pubsub.close();
    },
  };
}
export type WebhookWorker = Awaited<ReturnType<typeof webhookWorker>>;

/** A merchant with a default webhook URL and one API key. */
export async function merchantWithHook(t: TestApp, webhookUrl: string | null) {
  const em = t.app.fork();
  const merchant = await t.app.services.merchants.create(em, { name: 'Webhook merchant' });
  if (webhookUrl) await t.hookTo(merchant.id, webhookUrl);
  const key = await t.app.services.merchants.issueKey(em, merchant.id);
  return { id: merchant.id, keyId: key.id, secret: key.secret };
}
