/**
 * Batched delivery: one run sends every due delivery it can claim (taking their jobs, where they have
 * one), over kept-alive connections; new deliveries have no job and are sent by pump runs the waker
 * queues; a merchant's slow endpoint holds at most its in-flight cap while everyone else's deliveries
 * go past it; a delivery held back by that cap is sent as soon as a slot frees.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { requeue } from '../../src/modules/webhook/claim.ts';
import { enqueueWebhook } from '../../src/modules/webhook/outbox.ts';
import { WebhookDelivery } from '../../src/modules/webhook/webhook.entity.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import {
  merchantWithHook,
  type Receiver,
  startReceiver,
  type WebhookWorker,
  webhookWorker,
} from './support.ts';

let t: TestApp;
let w: WebhookWorker;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  t = await startTestApp();
  w = await webhookWorker(t, { perMerchant: 2, patienceMs: 100 });
});
afterAll(async () => {
  await w?.service.close();
  await w?.close();
  await t?.close();
});
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c().catch(() => {})));
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  closers.push(() => r.close());
  return r;
}

/** A receiver that answers 200 after `delayMs`, noting the client port of each request and how many were open at once. */
async function slowReceiver(delayMs: number) {
  const ports: number[] = [];
  let open = 0;
  let peak = 0;
  const server: Server = createServer((req, res) => {
    ports.push(req.socket.remotePort!);
    peak = Math.max(peak, ++open);
    req.resume();
    setTimeout(() => {
      open--;
      res.writeHead(200).end('ok');
    }, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, ports, peak: () => peak };
}

const enqueueFor = (merchantId: string, subject: string) =>
  t.app.fork().transactional(
    async (em) =>
      (await enqueueWebhook(em, {
        merchantId,
        event: 'payment.completed',
        subjectId: subject,
        body: { session_id: subject, status: 'completed' },
      }))!,
  );

const statuses = async (ids: string[]) =>
  (await t.app.fork().find(WebhookDelivery, { id: { $in: ids } })).map((d) => d.status);

const jobsOf = async (ids: string[]) =>
  Number(
    (
      await t.app
        .fork()
        .execute<{ n: string }[]>(
          `select count(*) as n from graphile_worker.jobs where key = any(string_to_array(?, ','))`,
          [ids.map((id) => `deliver_webhook:${id}`).join(',')],
        )
    )[0]!.n,
  );

it('one run sends every due delivery it claims, taking their jobs, and reuses the connection', async () => {
  const r = await slowReceiver(0);
  const m = await merchantWithHook(t, r.url);
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(await enqueueFor(m.id, `cs_batch_${i}`));
  // Each with a job of its own, as deliveries waiting for a retry or re-queued by the sweeper have.
  for (const id of ids) await requeue(t.app.fork(), id);
  expect(await jobsOf(ids)).toBe(6);
  // The first delivery's job, run by hand: it takes the others too (two at a time, the merchant's cap).
  expect(await w.service.deliver(t.app.fork(), ids[0]!)).toBe('delivered');
  expect(await statuses(ids)).toEqual(ids.map(() => 'delivered'));
  expect(r.ports).toHaveLength(6);
  // The others' jobs are gone: nothing runs again for them (the first one's is the job "running").
  expect(await jobsOf(ids.slice(1))).toBe(0);
  expect(await jobsOf(ids.slice(0, 1))).toBe(1);
  // Kept alive: six requests over at most the cap's two connections.
  expect(new Set(r.ports).size).toBeLessThanOrEqual(2);
}, 30_000);

it('new deliveries have no job of their own: a pump run sends them all', async () => {
  const r = await slowReceiver(0);
  const m = await merchantWithHook(t, r.url);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await enqueueFor(m.id, `cs_new_${i}`));
  expect(await jobsOf(ids)).toBe(0);
  expect(await w.service.deliver(t.app.fork(), null)).toBe('pumped');
  expect(await statuses(ids)).toEqual(ids.map(() => 'delivered'));
  expect(r.ports).toHaveLength(5);
}, 30_000);

it('a graphile-worker runner with the waker sends new deliveries as they are announced', async () => {
  const r = await receiver(200);
  const m = await merchantWithHook(t, r.url);
  const worker = await w.startRunner({ concurrency: 2 });
  try {
    // One at a time, and then a burst: each is sent without anyone adding a job for it.
    const first = await enqueueFor(m.id, 'cs_woken_0');
    await expect.poll(() => statuses([first]), { timeout: 10_000, interval: 20 }).toEqual(['delivered']);
    const burst: string[] = [];
    for (let i = 1; i <= 10; i++) burst.push(await enqueueFor(m.id, `cs_woken_${i}`));
    await expect
      .poll(() => statuses(burst), { timeout: 10_000, interval: 20 })
      .toEqual(burst.map(() => 'delivered'));
    expect(r.requests).toHaveLength(11);
  } finally {
    await worker.stop();
  }
}, 30_000);

it('a merchant whose endpoint hangs holds at most its cap; other merchants are delivered meanwhile', async () => {
  const hung = await receiver('hold');
  const fast = await receiver(200);
  const slowMerchant = await merchantWithHook(t, hung.url);
  const healthy = await merchantWithHook(t, fast.url);
  const stuck: string[] = [];
  const fine: string[] = [];
  for (let i = 0; i < 6; i++) {
    stuck.push(await enqueueFor(slowMerchant.id, `cs_hung_${i}`));
    fine.push(await enqueueFor(healthy.id, `cs_fine_${i}`));
  }
  const started = Date.now();
  await w.runDue();
  // The hanging attempts did not hold the run: it ended long before their 10 s timeout.
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(await statuses(fine)).toEqual(fine.map(() => 'delivered'));
  expect(hung.requests.length).toBe(2);
  const held = await statuses(stuck);
  expect(held.filter((s) => s === 'delivering')).toHaveLength(2);
  expect(held.filter((s) => s === 'pending')).toHaveLength(4);
  // The endpoint drops its connections: those two attempts end, are recorded, and the run that sent
  // them queues a pump for the merchant's four waiting deliveries.
  await hung.close();
  await expect.poll(() => statuses(stuck.slice(0, 6)), { timeout: 10_000 }).not.toContain('delivering');
}, 30_000);

it('deliveries held back by the cap are sent as soon as a slot frees, by concurrent runs', async () => {
  const r = await slowReceiver(150);
  const m = await merchantWithHook(t, r.url);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(await enqueueFor(m.id, `cs_capped_${i}`));
  // Enqueued before any worker listened: the waker queues a pump as it starts.
  const worker = await w.startRunner({ concurrency: 4 });
  try {
    // Never the sweeper's two minutes: twenty deliveries, two at a time, 150 ms each.
    await expect
      .poll(() => statuses(ids), { timeout: 10_000, interval: 50 })
      .toEqual(ids.map(() => 'delivered'));
  } finally {
    await worker.stop();
  }
  // The cap is read from committed leases: runs claiming at the same instant can each take it, so it
  // bounds a merchant at cap × concurrent runs, never the whole batch one run could claim (20).
  expect(r.peak()).toBeLessThanOrEqual(2 * 4);
}, 30_000);

it('a delivery held back while its merchant’s slot is busy is sent by the run holding the slot', async () => {
  // Patient runs (they wait for their receivers) and one slot per merchant: the pump woken for the
  // second delivery finds the slot taken (the first attempt is held open by the receiver) and leaves
  // it; once the receiver answers, the run holding the slot must send the second one too.
  const patient = await webhookWorker(t, { perMerchant: 1, patienceMs: 30_000 });
  closers.push(async () => {
    await patient.service.close();
    await patient.close();
  });
  const r = await receiver('hold');
  const m = await merchantWithHook(t, r.url);
  const worker = await patient.startRunner({ concurrency: 2 });
  try {
    const first = await enqueueFor(m.id, 'cs_slot_1');
    await r.waitFor(1, 15_000);
    const enqueued = Date.now();
    const second = await enqueueFor(m.id, 'cs_slot_2');
    // A pump started after the second was enqueued has ended, leaving it.
    await expect
      .poll(() => patient.runs.some((run) => run.id === null && run.started >= enqueued), {
        timeout: 15_000,
        interval: 10,
      })
      .toBe(true);
    expect(await statuses([second])).toEqual(['pending']);
    expect(r.requests).toHaveLength(1);
    // The receiver answers from now on; the held attempt fails (its connection is cut) and frees the slot.
    r.answer = 200;
    r.dropConnections();
    // Not the sweeper's two minutes later.
    await expect.poll(() => statuses([second]), { timeout: 15_000, interval: 20 }).toEqual(['delivered']);
    expect(await statuses([first])).not.toEqual(['delivering']);
  } finally {
    await worker.stop();
  }
}, 60_000);
