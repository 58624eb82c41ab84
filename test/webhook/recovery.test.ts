import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addJob } from '../../src/db/jobs.ts';
import { requeue } from '../../src/modules/webhook/claim.ts';
import { enqueueWebhook } from '../../src/modules/webhook/outbox.ts';
import { WebhookAttempt, WebhookDelivery } from '../../src/modules/webhook/webhook.entity.ts';
import { SWEEP_WEBHOOKS_JOB } from '../../src/modules/webhook/webhook.tasks.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { merchantWithHook, startReceiver, type WebhookWorker, webhookWorker } from './support.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const delivery = (id: string) => t.app.fork().findOneOrFail(WebhookDelivery, { id });
const attempts = (id: string) =>
  t.app.fork().find(WebhookAttempt, { delivery: id }, { orderBy: { number: 'asc' } });

it('a worker killed mid-delivery: after restart the delivery goes out again with the same keys', async () => {
  // The first request is held open (the worker dies waiting for it); later ones are answered.
  const r = await startReceiver((req) => (r.requests.indexOf(req) === 0 ? 'hold' : 200));
  const w = await webhookWorker(t);
  try {
    const m = await merchantWithHook(t, r.url);
    const id = (await t.app
      .fork()
      .transactional((em) =>
        enqueueWebhook(em, { merchantId: m.id, event: 'payment.completed', subjectId: 'cs_crash', body: {} }),
      ))!;

    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./crash-worker.ts', import.meta.url))],
      {
        env: {
          ...process.env,
          DATABASE_URL: t.config.databaseUrl,
          SECRETS_KEY: t.config.secretsKey!.toString('hex'),
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await r.waitFor(1, 30_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const orphan = await delivery(id);
    expect(orphan.status).toBe('delivering');
    expect(orphan.attempts).toBe(1);

    // The dead worker's job stays locked (graphile-worker itself would release it after 4 hours), so a
    // restarted worker alone runs nothing.
    await w.runDue();
    expect(r.requests).toHaveLength(1);

    // Once the lease (timeout + margin) has passed, the sweeper re-queues it and it is delivered.
    // (Past the lease the dead worker took, however late a loaded machine let it start.)
    w.clock.advance(Math.max(30_000, orphan.leaseUntil!.getTime() - w.clock.now() + 1_000));
    await addJob(t.app.fork(), SWEEP_WEBHOOKS_JOB, {});
    await w.runDue();
    expect(r.requests).toHaveLength(2);
    const [first, second] = r.requests;
    expect(second!.headers['x-webhook-id']).toBe(id);
    expect(second!.headers['x-idempotency-key']).toBe(first!.headers['x-idempotency-key']);
    expect(second!.headers['x-idempotency-key']).toBe('payment.completed:cs_crash');
    expect(second!.body).toBe(first!.body);

    const done = await delivery(id);
    expect(done.status).toBe('delivered');
    expect(done.attempts).toBe(2);
    const rows = await attempts(id);
    expect(rows.map((a) => [a.number, a.statusCode, a.error])).toEqual([
      [1, null, 'interrupted: the worker stopped before the outcome was recorded'],
      [2, 200, null],
    ]);
  } finally {
    await w.close();
    await r.close();
  }
});

it('the delivery’s own job takes over an expired lease when it runs again', async () => {
  const r = await startReceiver(200);
  const w = await webhookWorker(t);
  try {
    const m = await merchantWithHook(t, r.url);
    const id = (await enqueueWebhook(t.app.fork(), {
      merchantId: m.id,
      event: 'payout.completed',
      subjectId: 'po_lease',
      body: {},
    }))!;
    // Simulate a crash right after the claim committed: delivering, one attempt open, lease live.
    await t.app
      .fork()
      .execute(
        `update webhook_deliveries set status = 'delivering', attempts = 1, lease_until = ?, next_attempt_at = null where id = ?`,
        [new Date(w.clock.now() + 25_000).toISOString(), id],
      );
    await t.app
      .fork()
      .execute(`insert into webhook_attempts (delivery_id, number, started_at) values (?, 1, now())`, [id]);
    // The delivery's own job (as the sweeper or a retry adds it) runs while the lease is live.
    await requeue(t.app.fork(), id);
    await w.runDue({ wake: false });
    expect(w.outcomes).toEqual(['in_flight']);
    expect(r.requests).toHaveLength(0);
    // The job was re-queued for the end of the lease; once there, the next attempt goes out.
    await w.advance(25_000);
    await w.runDue({ wake: false });
    expect(w.outcomes).toEqual(['in_flight', 'delivered']);
    expect(r.requests).toHaveLength(1);
    expect((await attempts(id)).map((a) => a.error)).toEqual([
      'interrupted: the worker stopped before the outcome was recorded',
      null,
    ]);
  } finally {
    await w.close();
    await r.close();
  }
});

it('a new delivery no worker heard announced is sent once the sweeper finds it', async () => {
  const r = await startReceiver(200);
  const w = await webhookWorker(t);
  try {
    const m = await merchantWithHook(t, r.url);
    const id = (await enqueueWebhook(t.app.fork(), {
      merchantId: m.id,
      event: 'payment.failed',
      subjectId: 'cs_lost',
      body: {},
    }))!;
    // No waker heard it (no worker was running): no job sends it.
    await w.runDue({ wake: false });
    expect(r.requests).toHaveLength(0);
    // Within the grace period the sweeper leaves it alone (a pump may just be late); after it, not.
    await addJob(t.app.fork(), SWEEP_WEBHOOKS_JOB, {});
    await w.runDue({ wake: false });
    expect(r.requests).toHaveLength(0);
    w.clock.advance(121_000);
    await addJob(t.app.fork(), SWEEP_WEBHOOKS_JOB, {});
    await w.runDue({ wake: false });
    expect(r.requests).toHaveLength(1);
    expect((await delivery(id)).status).toBe('delivered');
  } finally {
    await w.close();
    await r.close();
  }
});

it('a hanging receiver times out without delaying another merchant', async () => {
  const hanging = await startReceiver('hold');
  const fast = await startReceiver(200);
  const w: WebhookWorker = await webhookWorker(t, { timeoutMs: 1_000 });
  const worker = await w.startRunner({ concurrency: 4, pollInterval: 50 });
  try {
    const slow = await merchantWithHook(t, hanging.url);
    const other = await merchantWithHook(t, fast.url);
    const started = Date.now();
    const slowId = (await enqueueWebhook(t.app.fork(), {
      merchantId: slow.id,
      event: 'payment.completed',
      subjectId: 'cs_slow',
      body: {},
    }))!;
    await hanging.waitFor(1);
    const fastId = (await enqueueWebhook(t.app.fork(), {
      merchantId: other.id,
      event: 'payment.completed',
      subjectId: 'cs_fast',
      body: {},
    }))!;
    await fast.waitFor(1);
    const fastAt = fast.requests[0]!.at - started;
    // The fast merchant was served while the slow one was still hanging.
    expect(fastAt).toBeLessThan(900);
    expect((await delivery(slowId)).status).toBe('delivering');
    await waitUntil(async () => (await delivery(fastId)).status === 'delivered');

    await waitUntil(async () => (await delivery(slowId)).status === 'pending', 5_000);
    const [attempt] = await attempts(slowId);
    expect(attempt!.error).toBe('timed out after 1000 ms');
    expect(attempt!.latencyMs).toBeGreaterThanOrEqual(990);
    expect(attempt!.latencyMs).toBeLessThan(2_500);
    const slowDelivery = await delivery(slowId);
    expect(slowDelivery.nextAttemptAt!.getTime() - w.clock.now()).toBe(30_000);
  } finally {
    await worker.stop();
    await w.close();
    await hanging.close();
    await fast.close();
  }
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
