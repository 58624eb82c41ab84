import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addJob } from '../../src/db/jobs.ts';
import {
  DELIVER_WEBHOOK_JOB,
  enqueueWebhook,
  type WebhookEvent as OutboxEvent,
} from '../../src/modules/webhook/outbox.ts';
import { WebhookAttempt, WebhookDelivery } from '../../src/modules/webhook/webhook.entity.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import {
  expectedSignature,
  merchantWithHook,
  type Receiver,
  startReceiver,
  type WebhookWorker,
  webhookWorker,
} from './support.ts';

let t: TestApp;
let w: WebhookWorker;
const receivers: Receiver[] = [];
beforeAll(async () => {
  t = await startTestApp();
  w = await webhookWorker(t);
});
afterAll(async () => {
  await w?.close();
  await t?.close();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close().catch(() => {})));
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

/** A receiver answering 200 with a 64 KiB body. */
async function startBigReceiver() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end('x'.repeat(65_536)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/big`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const enqueue = (event: OutboxEvent) => t.app.fork().transactional((em) => enqueueWebhook(em, event));
const delivery = (id: string) => t.app.fork().findOneOrFail(WebhookDelivery, { id }, { populate: ['event'] });
const attempts = (id: string) =>
  t.app.fork().find(WebhookAttempt, { delivery: id }, { orderBy: { number: 'asc' } });

describe('a delivery', () => {
  it('POSTs the stored body with the six headers, signed with the newest active key', async () => {
    const r = await receiver(200);
    const m = await merchantWithHook(t, r.url);
    // A second, newer key: D9 says the newest active key signs.
    const newer = await t.app.services.merchants.issueKey(t.app.fork(), m.id);
    const id = await enqueue({
      merchantId: m.id,
      event: 'payment.completed',
      subjectId: 'cs_headers',
      body: {
        session_id: 'cs_headers',
        merchant_id: m.id,
        status: 'completed',
        amount: '125.5',
        tx_hash: '',
      },
    });
    await w.runDue();
    expect(r.requests).toHaveLength(1);
    const req = r.requests[0]!;
    const stored = await delivery(id!);
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hook');
    expect(req.body).toBe(stored.event.body);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-webhook-event']).toBe('payment.completed');
    expect(req.headers['x-webhook-id']).toBe(id);
    expect(req.headers['x-idempotency-key']).toBe('payment.completed:cs_headers');
    expect(req.headers['x-webhook-key-id']).toBe(newer.id);
    const ts = String(req.headers['x-webhook-timestamp']);
    expect(ts).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(ts) - w.clock.now() / 1000)).toBeLessThan(2);
    expect(req.headers['x-webhook-signature']).toBe(expectedSignature(newer.secret, ts, req.body));
    expect(req.headers['x-webhook-signature']).not.toBe(expectedSignature(m.secret, ts, req.body));
    expect(JSON.parse(req.body)).toMatchObject({
      event: 'payment.completed',
      session_id: 'cs_headers',
      amount: '125.5',
    });
    expect(JSON.parse(req.body)).not.toHaveProperty('tx_hash');

    expect(stored.status).toBe('delivered');
    expect(stored.attempts).toBe(1);
    expect(stored.lastStatusCode).toBe(200);
    expect(stored.deliveredAt).toBeInstanceOf(Date);
    const [attempt] = await attempts(id!);
    expect(attempt).toMatchObject({ number: 1, statusCode: 200, responseBody: 'answer 200', error: null });
    expect(attempt!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('goes to the callback URL instead of the merchant default', async () => {
    const fallback = await receiver(200);
    const override = await receiver(200);
    const m = await merchantWithHook(t, fallback.url);
    await enqueue({
      merchantId: m.id,
      event: 'payout.completed',
      subjectId: 'po_cb',
      callbackUrl: override.url,
      body: {},
    });
    await w.runDue();
    expect(override.requests).toHaveLength(1);
    expect(fallback.requests).toHaveLength(0);
  });

  it('a rolled-back transaction sends nothing', async () => {
    const r = await receiver(200);
    const m = await merchantWithHook(t, r.url);
    await expect(
      t.app.fork().transactional(async (em) => {
        await enqueueWebhook(em, { merchantId: m.id, event: 'payment.failed', subjectId: 'cs_rb', body: {} });
        throw new Error('settlement aborted');
      }),
    ).rejects.toThrow('settlement aborted');
    await w.runDue();
    expect(r.requests).toHaveLength(0);
  });

  it('follows D9: 8 attempts at 0, +30s, +1m, +2m, +4m, +8m, +16m, +32m, then failed', async () => {
    const r = await receiver(500);
    const m = await merchantWithHook(t, r.url);
    const id = (await enqueue({
      merchantId: m.id,
      event: 'payout.failed',
      subjectId: 'po_sched',
      body: {},
    }))!;
    const start = w.clock.now();
    await w.runDue();
    expect(r.requests).toHaveLength(1);

    const delays = [30, 60, 120, 240, 480, 960, 1920];
    for (const [i, delay] of delays.entries()) {
      const d = await delivery(id);
      expect(d.status).toBe('pending');
      expect(d.attempts).toBe(i + 1);
      expect(d.nextAttemptAt!.getTime() - w.clock.now()).toBe(delay * 1000);
      expect(d.lastStatusCode).toBe(500);
      // One second early, even a job forced to run now makes no attempt and keeps the schedule.
      await w.advance(delay * 1000 - 1000);
      await w.makeDue(new Date('9999-01-01T00:00:00Z'));
      w.outcomes.length = 0;
      await w.runDue({ wake: false });
      expect(w.outcomes).toEqual(['not_due']);
      expect(r.requests).toHaveLength(i + 1);
      await w.advance(1000);
      await w.runDue({ wake: false });
      expect(w.outcomes.at(-1)).toBe(i === delays.length - 1 ? 'failed' : 'retry_scheduled');
      expect(r.requests).toHaveLength(i + 2);
    }
    const d = await delivery(id);
    expect(d.status).toBe('failed');
    expect(d.attempts).toBe(8);
    expect(d.nextAttemptAt).toBeNull();
    expect(d.lastError).toBe('HTTP 500');

    // Timestamps as signed, relative to the first attempt: exactly the schedule.
    const stamps = r.requests.map((q) => Number(q.headers['x-webhook-timestamp']) - Math.floor(start / 1000));
    expect(stamps).toEqual([0, 30, 90, 210, 450, 930, 1890, 3810]);
    expect(new Set(r.requests.map((q) => q.headers['x-webhook-id']))).toEqual(new Set([id]));
    for (const q of r.requests) {
      expect(q.headers['x-webhook-signature']).toBe(
        expectedSignature(m.secret, String(q.headers['x-webhook-timestamp']), q.body),
      );
    }
    const rows = await attempts(id);
    expect(rows.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(rows.every((a) => a.statusCode === 500 && a.responseBody === 'answer 500')).toBe(true);
    // Nothing is left queued: failed is final.
    await w.advance(7_200_000);
    await w.runDue();
    expect(r.requests).toHaveLength(8);
  });

  it('any 2xx counts as delivered; a 3xx is not followed and retried', async () => {
    const r = await receiver(302);
    const m = await merchantWithHook(t, r.url);
    const id = (await enqueue({
      merchantId: m.id,
      event: 'payment.completed',
      subjectId: 'cs_2xx',
      body: {},
    }))!;
    await w.runDue();
    expect((await delivery(id)).status).toBe('pending');
    r.answer = 204;
    await w.advance(30_000);
    await w.runDue();
    const d = await delivery(id);
    expect(d.status).toBe('delivered');
    expect(d.lastStatusCode).toBe(204);
    expect(r.requests).toHaveLength(2);
  });

  it('keeps the first 2 KiB of the answer', async () => {
    const big = await startBigReceiver();
    try {
      const m = await merchantWithHook(t, big.url);
      const id = (await enqueue({
        merchantId: m.id,
        event: 'payout.completed',
        subjectId: 'po_big',
        body: {},
      }))!;
      await w.runDue();
      const [attempt] = await attempts(id);
      expect(attempt!.responseBody).toBe('x'.repeat(2048));
      expect((await delivery(id)).status).toBe('delivered');
    } finally {
      await big.close();
    }
  });

  it('a job that runs again after delivery records nothing and sends nothing', async () => {
    const r = await receiver(200);
    const m = await merchantWithHook(t, r.url);
    const id = (await enqueue({
      merchantId: m.id,
      event: 'payment.completed',
      subjectId: 'cs_twice',
      body: {},
    }))!;
    await w.runDue();
    // Two more runs for it (under keys of their own, or they would merge into one).
    await addJob(t.app.fork(), DELIVER_WEBHOOK_JOB, { deliveryId: id }, { jobKey: 'again-1' });
    await addJob(t.app.fork(), DELIVER_WEBHOOK_JOB, { deliveryId: id }, { jobKey: 'again-2' });
    await w.runDue();
    expect(await w.service.deliver(t.app.fork(), id)).toBe('finished');
    expect(r.requests).toHaveLength(1);
    expect(await attempts(id)).toHaveLength(1);
  });

  it('no active API key at send time: failed with a clear error, not retried', async () => {
    const r = await receiver(200);
    const m = await merchantWithHook(t, r.url);
    const id = (await enqueue({
      merchantId: m.id,
      event: 'payout.completed',
      subjectId: 'po_nokey',
      body: {},
    }))!;
    await t.app.services.merchants.revokeKey(t.app.fork(), m.keyId);
    await w.runDue();
    const d = await delivery(id);
    expect(d.status).toBe('failed');
    expect(d.lastError).toMatch(/no active API key/);
    expect(r.requests).toHaveLength(0);
    await w.advance(3_600_000);
    await w.runDue();
    expect((await attempts(id)).length).toBe(1);
  });
});

describe('operators', () => {
  it('receiver down for all 8 attempts → failed → resend via GraphQL → delivered, same idempotency key, new id', async () => {
    const r = await receiver(200);
    await r.down();
    const m = await merchantWithHook(t, r.url);
    const id = (await enqueue({
      merchantId: m.id,
      event: 'deposit.confirmed',
      subjectId: 'dep_down',
      body: {},
    }))!;
    await w.runDue();
    for (const delay of [30, 60, 120, 240, 480, 960, 1920]) {
      await w.advance(delay * 1000);
      await w.runDue();
    }
    const failed = await delivery(id);
    expect(failed.status).toBe('failed');
    expect(failed.attempts).toBe(8);
    expect(failed.lastError).toMatch(/ECONNREFUSED/);
    expect(r.requests).toHaveLength(0);

    await r.up();
    const token = await t.operatorToken();
    const res = await t.graphql(
      token,
      'mutation($id: ID) { resendWebhook(deliveryId: $id) { id status idempotencyKey } }',
      {
        id,
      },
    );
    expect(res.errors).toBeUndefined();
    const fresh = res.data.resendWebhook;
    expect(fresh.id).toMatch(/^wh_/);
    expect(fresh.id).not.toBe(id);
    expect(fresh.status).toBe('pending');
    await w.runDue();
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.headers['x-idempotency-key']).toBe('deposit.confirmed:dep_down');
    expect(r.requests[0]!.headers['x-webhook-id']).toBe(fresh.id);
    expect(r.requests[0]!.body).toBe(failed.event.body);
    expect((await delivery(fresh.id)).status).toBe('delivered');

    // Resending by event id works too, at any time (even after delivery).
    const again = await t.graphql(token, 'mutation($e: ID) { resendWebhook(eventId: $e) { id } }', {
      e: failed.event.id,
    });
    expect(again.errors).toBeUndefined();
    await w.runDue();
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]!.headers['x-idempotency-key']).toBe('deposit.confirmed:dep_down');

    const list = await t.graphql(
      token,
      `query($m: ID) { webhookDeliveries(filter: { merchantId: $m, subjectId: "dep_down" }, first: 2) {
         nodes { id status attemptCount event idempotencyKey attempts { number statusCode error } }
         hasNextPage endCursor } }`,
      { m: m.id },
    );
    expect(list.errors).toBeUndefined();
    const page = list.data.webhookDeliveries;
    expect(page.nodes.map((n: { id: string }) => n.id)).toEqual([again.data.resendWebhook.id, fresh.id]);
    expect(page.hasNextPage).toBe(true);
    const next = await t.graphql(
      token,
      `query($m: ID, $after: String) { webhookDeliveries(filter: { merchantId: $m }, first: 2, after: $after) {
         nodes { id status attemptCount attempts { number error } } hasNextPage } }`,
      { m: m.id, after: page.endCursor },
    );
    const original = next.data.webhookDeliveries.nodes;
    expect(original.map((n: { id: string }) => n.id)).toEqual([id]);
    expect(original[0].status).toBe('failed');
    expect(original[0].attempts).toHaveLength(8);
    expect(original[0].attempts[0].error).toMatch(/ECONNREFUSED/);
    expect(next.data.webhookDeliveries.hasNextPage).toBe(false);

    const failedOnly = await t.graphql(
      token,
      `query($m: ID) { webhookDeliveries(filter: { merchantId: $m, status: failed, event: "deposit.confirmed" }) { nodes { id } } }`,
      { m: m.id },
    );
    expect(failedOnly.data.webhookDeliveries.nodes).toEqual([{ id }]);
    const one = await t.graphql(
      token,
      'query($id: ID!) { webhookDelivery(id: $id) { id targetUrl lastError } }',
      { id },
    );
    expect(one.data.webhookDelivery).toMatchObject({ id, targetUrl: r.url });
  });

  it('delivery queries and resend are operator-only', async () => {
    const res = await fetch(`${t.http.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ webhookDeliveries { nodes { id } } }' }),
    });
    const json = (await res.json()) as { errors?: { extensions: { code: string } }[] };
    expect(json.errors?.[0]?.extensions.code).toBe('unauthorized');
    const token = await t.operatorToken();
    const bad = await t.graphql(token, 'mutation { resendWebhook { id } }');
    expect(bad.errors?.[0]?.extensions?.code).toBe('validation');
    const missing = await t.graphql(token, 'mutation { resendWebhook(deliveryId: "wh_nope") { id } }');
    expect(missing.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});
