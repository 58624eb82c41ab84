import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LISTENER_NAME } from '../../src/db/pubsub.ts';
import { enqueueWebhook } from '../../src/modules/webhook/outbox.ts';
import { WebhookDelivery } from '../../src/modules/webhook/webhook.entity.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { merchantWithHook, type Receiver, startReceiver } from './support.ts';

/**
 * A worker process sends new deliveries without a job per delivery: the outbox announces each one,
 * the webhook module's companion (the waker) hears it and queues a pump run. Announcements nobody
 * heard are found when the waker starts and when its LISTEN connection is back.
 */

let t: TestApp;
let r: Receiver;
let admin: pg.Client;
beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  r = await startReceiver(200);
  admin = new pg.Client(t.config.databaseUrl);
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await r?.close();
  await t?.close();
});

const enqueue = (merchantId: string, subject: string) =>
  t.app
    .fork()
    .transactional(
      async (em) =>
        (await enqueueWebhook(em, { merchantId, event: 'payout.completed', subjectId: subject, body: {} }))!,
    );
const status = async (id: string) => (await t.app.fork().findOneOrFail(WebhookDelivery, { id })).status;
const jobs = async (where = 'true') =>
  (await admin.query<{ n: number }>(`select count(*)::int as n from graphile_worker.jobs where ${where}`))
    .rows[0]!.n;

async function withWorker(run: (worker: Worker) => Promise<void>) {
  const worker = await startWorker(t.app, { followers: false });
  try {
    await run(worker);
  } finally {
    await worker.stop();
  }
}

it('sends a delivery committed while no worker ran once one starts, and new ones as they are announced', async () => {
  const m = await merchantWithHook(t, r.url);
  const before = await enqueue(m.id, 'po_before');
  expect(await jobs()).toBe(0);
  await withWorker(async () => {
    await expect.poll(() => status(before), { timeout: 10_000 }).toBe('delivered');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await enqueue(m.id, `po_woken_${i}`));
    for (const id of ids) await expect.poll(() => status(id), { timeout: 10_000 }).toBe('delivered');
  });
  // Every pump run that started was completed before the worker stopped: no job is left locked (a pump
  // queued last may still wait for the next worker).
  expect(await jobs('locked_at is not null')).toBe(0);
  expect(r.requests.map((q) => q.headers['x-idempotency-key'])).toEqual([
    'payout.completed:po_before',
    ...[0, 1, 2, 3, 4].map((i) => `payout.completed:po_woken_${i}`),
  ]);
});

it('a delivery announced while the worker’s LISTEN connection was down is sent when it is back', async () => {
  const m = await merchantWithHook(t, r.url);
  await withWorker(async () => {
    // Once a delivery has been sent and its pump run has ended, nothing runs that could send the next.
    const warm = await enqueue(m.id, 'po_warm');
    await expect.poll(() => status(warm), { timeout: 10_000 }).toBe('delivered');
    await expect.poll(() => jobs(), { timeout: 10_000 }).toBe(0);
    const { rows } = await admin.query<{ pid: number }>(
      'select pid from pg_stat_activity where datname = current_database() and application_name = $1',
      [LISTENER_NAME],
    );
    expect(rows).toHaveLength(1);
    await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    await expect.poll(() => t.app.pubsub.listening, { interval: 5 }).toBe(false);
    // Committed while nobody listens: its announcement is lost.
    const id = await enqueue(m.id, 'po_unheard');
    // The connection comes back (after a second) and the waker queues a pump: not the sweeper's minutes.
    await expect.poll(() => status(id), { timeout: 10_000 }).toBe('delivered');
  });
});
