import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { deliveryTopic, enqueueWebhook } from '../../src/modules/webhook/outbox.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { merchantWithHook, startReceiver, webhookWorker } from './support.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const SUBSCRIPTION = `subscription($m: ID) { webhookDeliveryUpdated(merchantId: $m) { id merchantId status attemptCount event } }`;

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('pushes every change of a delivery made by another worker (LISTEN/NOTIFY), filtered by merchant', async () => {
  const r = await startReceiver(200);
  // The worker has its own service instance and database connections, as a separate process would.
  const worker = await webhookWorker(t);
  const token = await t.operatorToken();
  const client = createClient({
    url: `${t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
  });
  const pubsub = t.app.pubsub;
  try {
    const watched = await merchantWithHook(t, r.url);
    const other = await merchantWithHook(t, r.url);
    const seen: { id: string; merchantId: string; status: string; attemptCount: number }[] = [];
    const failures: unknown[] = [];
    const stop = client.subscribe<{ webhookDeliveryUpdated: (typeof seen)[number] }>(
      { query: SUBSCRIPTION, variables: { m: watched.id } },
      {
        next: (v) => seen.push(v.data!.webhookDeliveryUpdated),
        error: (e) => failures.push(e),
        complete: () => {},
      },
    );
    await until(() => pubsub.subscribers(deliveryTopic) === 1 && pubsub.listening);

    await enqueueWebhook(t.app.fork(), {
      merchantId: other.id,
      event: 'payout.completed',
      subjectId: 'po_other',
      body: {},
    });
    const id = await enqueueWebhook(t.app.fork(), {
      merchantId: watched.id,
      event: 'payout.completed',
      subjectId: 'po_w',
      body: {},
    });
    await worker.runDue();
    await until(() => seen.some((s) => s.status === 'delivered'));
    expect(failures).toEqual([]);
    expect(seen.map((s) => [s.id, s.status])).toEqual([
      [id, 'pending'],
      [id, 'delivering'],
      [id, 'delivered'],
    ]);
    expect(seen.every((s) => s.merchantId === watched.id)).toBe(true);
    // Each push is the state as of that change, even when the next change came first.
    expect(seen.map((s) => s.attemptCount)).toEqual([0, 1, 1]);

    // A change in a rolled-back transaction is never announced.
    await t.app
      .fork()
      .transactional(async (em) => {
        await enqueueWebhook(em, {
          merchantId: watched.id,
          event: 'payment.failed',
          subjectId: 'cs_rb',
          body: {},
        });
        throw new Error('rollback');
      })
      .catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen).toHaveLength(3);

    stop();
    // The last subscriber leaving stops listening to the channel.
    await until(() => pubsub.subscribers(deliveryTopic) === 0);
  } finally {
    await client.dispose();
    await worker.close();
    await r.close();
  }
});

it('is operator-only', async () => {
  const client = createClient({
    url: `${t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
  });
  try {
    // graphql-ws reports resolver errors as a result with `errors`, then completes.
    const outcome = await new Promise<unknown>((resolve) => {
      client.subscribe(
        { query: SUBSCRIPTION },
        { next: resolve, error: resolve, complete: () => resolve('completed') },
      );
    });
    expect(JSON.stringify(outcome)).toMatch(/"code":"unauthorized"/);
  } finally {
    await client.dispose();
  }
});
