import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildWebhookBody,
  type DeliveryNotice,
  deliveryTopic,
  enqueueStatement,
  enqueueWebhook,
} from '../../src/modules/webhook/outbox.ts';
import { WebhookDelivery, WebhookEvent } from '../../src/modules/webhook/webhook.entity.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { explainAnalyze, type PlanNode, rowsVisited } from '../support/plan.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

async function merchantWith(
  patch: { webhookUrl?: string | null; webhooksEnabled?: boolean; key?: boolean } = {},
) {
  const em = t.app.fork();
  const m = await t.app.services.merchants.create(em, { name: 'm' });
  await t.hookTo(m.id, 'webhookUrl' in patch ? (patch.webhookUrl ?? null) : 'http://127.0.0.1:9/hook');
  if (patch.webhooksEnabled === false)
    await t.app.services.merchants.update(em, m.id, { webhooksEnabled: false });
  if (patch.key !== false) await t.app.services.merchants.issueKey(em, m.id);
  return m.id;
}

const jobsFor = async (deliveryId: string) =>
  (
    await t.app
      .fork()
      .execute<{ n: string }[]>(`select count(*) as n from graphile_worker.jobs where key = ?`, [
        `deliver_webhook:${deliveryId}`,
      ])
  )[0]!.n;

describe('enqueueWebhook', () => {
  it('writes event and delivery in the caller transaction, and announces the delivery when it commits', async () => {
    const merchantId = await merchantWith();
    const heard: DeliveryNotice[] = [];
    const off = await t.app.pubsub.on(deliveryTopic, (n) => {
      if (n.merchantId === merchantId) heard.push(n);
    });
    const id = await t.app.fork().transactional(async (em) => {
      const id = await enqueueWebhook(em, {
        merchantId,
        event: 'payment.completed',
        subjectId: 'cs_1',
        body: {
          session_id: 'cs_1',
          merchant_id: merchantId,
          status: 'completed',
          player_id: '',
          tx_hash: null,
          amount: undefined,
        },
      });
      // Nothing is announced before the commit.
      await new Promise((r) => setTimeout(r, 50));
      expect(heard).toEqual([]);
      return id;
    });
    expect(id).toMatch(/^wh_[A-Za-z0-9_-]{22}$/);
    // The announcement is what wakes a worker (waker.ts): there is no job per delivery.
    await expect.poll(() => heard.map((n) => [n.id, n.status, n.attempts])).toEqual([[id, 'pending', 0]]);
    await off();
    expect(await jobsFor(id!)).toBe('0');
    const em = t.app.fork();
    const delivery = await em.findOneOrFail(WebhookDelivery, { id: id! }, { populate: ['event'] });
    expect(delivery.status).toBe('pending');
    expect(delivery.targetUrl).toBe('http://127.0.0.1:9/hook');
    expect(delivery.event.idempotencyKey).toBe('payment.completed:cs_1');
    const body = delivery.event.body;
    expect(body).not.toContain('\n');
    const parsed = JSON.parse(body);
    expect(Object.keys(parsed)).toEqual(['event', 'session_id', 'merchant_id', 'status', 'occurred_at']);
    expect(parsed.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('a rolled-back transaction leaves nothing behind', async () => {
    const merchantId = await merchantWith();
    let id: string | null = null;
    await expect(
      t.app.fork().transactional(async (em) => {
        id = await enqueueWebhook(em, { merchantId, event: 'payout.failed', subjectId: 'po_rb', body: {} });
        throw new Error('business failure');
      }),
    ).rejects.toThrow('business failure');
    expect(id).toMatch(/^wh_/);
    expect(await t.app.fork().count(WebhookDelivery, { id: id! })).toBe(0);
    expect(await t.app.fork().count(WebhookEvent, { merchant: merchantId })).toBe(0);
    expect(await jobsFor(id!)).toBe('0');
  });

  it('the same logical event is created once, even when enqueued twice', async () => {
    const merchantId = await merchantWith();
    const input = {
      merchantId,
      event: 'deposit.confirmed' as const,
      subjectId: 'dep_1',
      body: { deposit_id: 'dep_1' },
    };
    const first = await t.app.fork().transactional((em) => enqueueWebhook(em, input));
    const second = await t.app.fork().transactional((em) => enqueueWebhook(em, input));
    expect(second).toBe(first);
    expect(await t.app.fork().count(WebhookEvent, { merchant: merchantId })).toBe(1);
    expect(await t.app.fork().count(WebhookDelivery, { merchant: merchantId })).toBe(1);
  });

  it('concurrent enqueues of one event create it once', async () => {
    const merchantId = await merchantWith();
    const input = { merchantId, event: 'payment.failed' as const, subjectId: 'cs_race', body: {} };
    const ids = await Promise.all(
      Array.from({ length: 5 }, () => t.app.fork().transactional((em) => enqueueWebhook(em, input))),
    );
    expect(new Set(ids).size).toBe(1);
    expect(await t.app.fork().count(WebhookDelivery, { merchant: merchantId })).toBe(1);
  });

  it('no API key, webhooks disabled, or no target: nothing is due', async () => {
    const noKey = await merchantWith({ key: false });
    const disabled = await merchantWith({ webhooksEnabled: false });
    const noUrl = await merchantWith({ webhookUrl: null });
    for (const merchantId of [noKey, disabled]) {
      expect(
        await enqueueWebhook(t.app.fork(), {
          merchantId,
          event: 'payment.completed',
          subjectId: 'x',
          body: {},
        }),
      ).toBeNull();
      expect(await t.app.fork().count(WebhookEvent, { merchant: merchantId })).toBe(0);
    }
    expect(
      await enqueueWebhook(t.app.fork(), {
        merchantId: noUrl,
        event: 'payment.completed',
        subjectId: 'x',
        body: {},
      }),
    ).toBeNull();
    const viaCallback = await enqueueWebhook(t.app.fork(), {
      merchantId: noUrl,
      event: 'payment.completed',
      subjectId: 'x',
      callbackUrl: 'https://example.com/cb',
      body: {},
    });
    expect(viaCallback).toMatch(/^wh_/);
  });

  it('a revoked key counts as no key', async () => {
    const merchantId = await merchantWith();
    const em = t.app.fork();
    for (const k of await t.app.services.merchants.listKeys(em, merchantId))
      await t.app.services.merchants.revokeKey(em, k.id);
    expect(
      await enqueueWebhook(t.app.fork(), {
        merchantId,
        event: 'payout.completed',
        subjectId: 'po_1',
        body: {},
      }),
    ).toBeNull();
  });

  it('callbackUrl overrides the merchant default', async () => {
    const merchantId = await merchantWith({ webhookUrl: 'https://example.com/default' });
    const id = await enqueueWebhook(t.app.fork(), {
      merchantId,
      event: 'payout.completed',
      subjectId: 'po_2',
      callbackUrl: 'https://example.com/override',
      body: {},
    });
    const d = await t.app.fork().findOneOrFail(WebhookDelivery, { id: id! }, { populate: ['event'] });
    expect(d.targetUrl).toBe('https://example.com/override');
    expect(d.event.callbackUrl).toBe('https://example.com/override');
    const viaDefault = await enqueueWebhook(t.app.fork(), {
      merchantId,
      event: 'payout.completed',
      subjectId: 'po_3',
      callbackUrl: '',
      body: {},
    });
    expect((await t.app.fork().findOneOrFail(WebhookDelivery, { id: viaDefault! })).targetUrl).toBe(
      'https://example.com/default',
    );
  });

  it("a delivery's merchant is its event's: deleting the merchant deletes both", async () => {
    // The delivery's merchant has no foreign key of its own (the event's guards it): a deleted
    // merchant's deliveries go with its events.
    const merchantId = await merchantWith();
    const event = { merchantId, event: 'payment.completed' as const, subjectId: 'cs_del', body: {} };
    const id = await enqueueWebhook(t.app.fork(), event);
    const d = await t.app.fork().findOneOrFail(WebhookDelivery, { id: id! }, { populate: ['event'] });
    expect(d.merchant.id).toBe(merchantId);
    expect(d.event.merchant.id).toBe(merchantId);
    await t.app.fork().execute('delete from merchants where id = ?', [merchantId]);
    expect(await t.app.fork().count(WebhookDelivery, { id: id! })).toBe(0);
    expect(await t.app.fork().count(WebhookEvent, { merchant: merchantId })).toBe(0);
  });
});

describe('enqueueWebhooks in bulk', () => {
  // A database of its own holding one merchant with its key, its statistics current: what the
  // planner sees of a new installation, where it expects one row of each join.
  let fresh: TestApp;
  beforeAll(async () => {
    fresh = await startTestApp();
  });
  afterAll(() => fresh?.close());

  it.each([
    // A chunk's deposits, the only merchant of a new installation: the planner then counts the
    // events due as one row, and paired each event created with its input row by a nested loop.
    [67, 'a few dozen'],
    [1000, 'a thousand'],
  ])(
    '%i events (%s) in one statement: its row sets are joined by key, not each scanned once per row of another',
    async (n) => {
      const em = fresh.app.fork();
      const { id: merchantId } = await fresh.app.services.merchants.create(em, { name: `bulk ${n}` });
      await fresh.hookTo(merchantId, 'http://127.0.0.1:9/hook');
      await fresh.app.services.merchants.issueKey(em, merchantId);
      await em.execute('analyze');
      const events = Array.from({ length: n }, (_, i) => ({
        merchantId,
        event: 'payment.completed' as const,
        subjectId: `cs_bulk_${i}`,
        body: { session_id: `cs_bulk_${i}`, status: 'completed' },
      }));
      const { sql, params } = enqueueStatement(events);
      const rollback = new Error('rollback');
      let plan: PlanNode | undefined;
      await expect(
        fresh.app.fork().transactional(async (tx) => {
          plan = await explainAnalyze(tx, sql, params);
          throw rollback;
        }),
      ).rejects.toBe(rollback);
      // Each event is read, inserted, joined and returned a bounded number of times (a nested loop
      // matching each delivery to its event visits n² = a million rows).
      expect(rowsVisited(plan!)).toBeLessThan(50 * n);
      expect(await fresh.app.fork().count(WebhookEvent, { merchant: merchantId })).toBe(0);
    },
  );
});

describe('buildWebhookBody', () => {
  it('orders event first and occurred_at last, drops empty fields, normalises values', () => {
    const body = buildWebhookBody({
      merchantId: 'mer_1',
      event: 'deposit.confirmed',
      subjectId: 'dep_1',
      occurredAt: new Date('2026-01-02T03:04:05.678Z'),
      body: {
        event: 'ignored',
        deposit_id: 'dep_1',
        block: 123n,
        amount: '1.5',
        merchant_id: 'mer_other',
        fee: '',
        x: null,
      },
    });
    expect(body).toBe(
      '{"event":"deposit.confirmed","deposit_id":"dep_1","block":123,"amount":"1.5","merchant_id":"mer_1","occurred_at":"2026-01-02T03:04:05.678Z"}',
    );
  });
});
