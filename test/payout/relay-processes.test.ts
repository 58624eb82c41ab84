import { Wallet } from 'ethers';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { spawnWorker, type WorkerProcess } from '../followers/processes.ts';
import { type PayoutFixture, payoutFixture, signOrder, until } from './support.ts';

/**
 * The relayer across separate worker processes (test/followers/worker-process.ts): concurrent
 * submission without a nonce clash, crashes at the two dangerous points (after signing, after
 * broadcasting), and a worker SIGKILLed again and again while payouts relay. Every payout must be paid
 * exactly once: one mined relay transaction and exactly its amount at the recipient.
 */

let f: PayoutFixture;
let miner: ReturnType<typeof setInterval>;
const workers = new Set<WorkerProcess>();
let seq = 0;

beforeAll(async () => {
  f = await payoutFixture({ env: { WORKER_CONCURRENCY: '2' } });
  await f.approve('USDT');
  miner = setInterval(() => void f.provider.send('anvil_mine', ['0x1']).catch(() => {}), 300);
});
// A test that fails midway must not leave its workers running into the next one.
afterEach(async () => {
  await Promise.all([...workers].map((w) => w.kill('SIGTERM')));
});
afterAll(async () => {
  clearInterval(miner);
  await Promise.all([...workers].map((w) => w.kill()));
  await f?.close();
});

async function worker(env: Record<string, string> = {}): Promise<WorkerProcess> {
  const w = await spawnWorker(f, `w${++seq}`, env);
  workers.add(w);
  void w.exited.then(() => workers.delete(w));
  return w;
}

async function authorize(count: number, amount: (i: number) => string) {
  const orders: { id: string; recipient: string; raw: bigint }[] = [];
  for (let start = 0; start < count; start += 10) {
    const chunk = await Promise.all(
      Array.from({ length: Math.min(10, count - start) }, async (_, k) => {
        const i = start + k;
        const recipient = Wallet.createRandom().address;
        const { body } = await f.call('/v1/payouts', {
          network: 'eth',
          token: 'USDT',
          amount: amount(i),
          recipient,
        });
        const signature = await signOrder(f.payer, body.typed_data);
        const auth = await f.call('/v1/payouts/authorize', { payout: body.payout, signature });
        expect(auth.body.status).toBe('authorized');
        return { id: body.payout as string, recipient, raw: BigInt(body.typed_data.message.amount) };
      }),
    );
    orders.push(...chunk);
  }
  return orders;
}

const statuses = async (ids: string[]) =>
  f.t.app
    .fork()
    .execute<{ id: string; status: string }[]>(`select id, status from payouts where id in (?)`, [ids]);
const settled = (rows: { status: string }[], n: number) =>
  rows.length === n && rows.every((r) => r.status === 'completed' || r.status === 'failed');

/** Each payout: completed, exactly one mined relay transaction, exactly its amount at the recipient. */
async function paidExactlyOnce(orders: { id: string; recipient: string; raw: bigint }[]) {
  const rows = await statuses(orders.map((o) => o.id));
  expect(rows.filter((r) => r.status !== 'completed')).toEqual([]);
  // A payout completes from the router's event; the relayer's watcher records its own transaction as
  // mined on its next pass.
  const mined = await until(
    () =>
      f.t.app.fork().execute<{ subject_id: string; n: number; nonce: string }[]>(
        `select r.subject_id, count(*)::int as n, min(t.nonce)::text as nonce from relay_transactions t
           join relay_requests r on r.id = t.request_id
          where t.status = 'mined' and r.subject_id in (?) group by r.subject_id`,
        [orders.map((o) => o.id)],
      ),
    (m) => m.length === orders.length,
  );
  expect(mined).toHaveLength(orders.length);
  expect(mined.every((m) => m.n === 1)).toBe(true);
  for (const o of orders) expect(await f.balance('USDT', o.recipient)).toBe(o.raw);
  return mined;
}

it('two worker processes relay 50 payouts concurrently: 50 distinct nonces, each paid once', async () => {
  await Promise.all([worker(), worker()]);
  const orders = await authorize(50, (i) => `1.${String(i).padStart(2, '0')}`);
  const rows = await until(
    () => statuses(orders.map((o) => o.id)),
    (r) => settled(r, 50),
    90_000,
  );
  expect(settled(rows, 50)).toBe(true);
  const mined = await paidExactlyOnce(orders);
  expect(new Set(mined.map((m) => m.nonce)).size).toBe(50);
  await Promise.all([...workers].map((w) => w.kill('SIGTERM')));
}, 150_000);

it('a worker killed after signing, and one killed after broadcasting: each payout paid exactly once', async () => {
  const afterSign = await worker({ FAULT_POINT: 'relay:after-sign' });
  const [first] = await authorize(1, () => '2');
  await afterSign.exited;
  const [signed] = await f.t.app.fork().execute<{ n: number }[]>(
    `select count(*)::int as n from relay_transactions t join relay_requests r on r.id = t.request_id
        where r.subject_id = ? and t.status = 'signed'`,
    [first!.id],
  );
  expect(signed?.n).toBe(1);

  const afterBroadcast = await worker({ FAULT_POINT: 'relay:after-broadcast' });
  await afterBroadcast.exited; // it re-broadcast the stored bytes of the first, then died
  const [second] = await authorize(1, () => '3');
  const clean = await worker();
  const rows = await until(
    () => statuses([first!.id, second!.id]),
    (r) => settled(r, 2),
    60_000,
  );
  expect(settled(rows, 2)).toBe(true);
  await paidExactlyOnce([first!, second!]);
  await clean.kill('SIGTERM');
}, 120_000);

it('a worker SIGKILLed every 10 s while 100 payouts relay through two processes: all paid once, soon after the last kill', async () => {
  await Promise.all([worker(), worker()]);
  const orders = await authorize(100, (i) => `0.${String(i + 1).padStart(3, '0')}`);
  for (let kill = 0; kill < 3; kill++) {
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const victim = [...workers][kill % workers.size]!;
    await victim.kill('SIGKILL');
    await worker();
  }
  const lastKill = Date.now();
  const rows = await until(
    () => statuses(orders.map((o) => o.id)),
    (r) => settled(r, 100),
    60_000,
  );
  expect(settled(rows, 100)).toBe(true);
  expect(Date.now() - lastKill).toBeLessThan(60_000);
  await paidExactlyOnce(orders);
}, 180_000);

it('a worker killed between a batch relay and recording its items: every item settled once', async () => {
  await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
  const recipients = Array.from({ length: 5 }, () => Wallet.createRandom().address);
  const { body } = await f.call('/v1/payouts/batch', {
    network: 'eth',
    token: 'USDT',
    items: recipients.map((recipient, i) => ({ recipient, amount: `${i + 1}` })),
  });
  const signature = await signOrder(f.payer, body.typed_data);
  const crashing = await worker({ FAULT_POINT: 'batch:before-record' });
  await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
  await crashing.exited; // relayed the batch, then died recording its items
  // Relayed: its transaction was stored (before broadcast) and is on chain. Whether the sender also
  // recorded it sent depends on which of the process's tasks came first: the follower, seeing the
  // mined batch, may crash the process between the broadcast and that record.
  const relayed = await f.t.app.fork().execute<{ hash: string }[]>(
    `select t.hash from relay_transactions t join relay_requests r on r.id = t.request_id
      where r.subject_id = ?`,
    [`${body.batch}#1`],
  );
  expect(relayed.length).toBeGreaterThan(0);
  const receipts = await Promise.all(relayed.map((t) => f.provider.getTransactionReceipt(t.hash)));
  expect(receipts.some((r) => r?.status === 1)).toBe(true);
  await worker();
  const done = await until(
    async () => (await f.call('/v1/payouts/batch/status', { batch: body.batch })).body,
    (b: { status: string }) => b.status === 'completed',
    60_000,
  );
  expect(done.status).toBe('completed');
  for (const [i, r] of recipients.entries())
    expect(await f.balance('USDT', r)).toBe(BigInt(i + 1) * 1_000_000n);
  const events = await f.t.app
    .fork()
    .execute<{ n: number }[]>(
      `select count(*)::int as n from webhook_events where subject_id in (select id from payouts where batch_id = ?)`,
      [body.batch],
    );
  expect(events[0]?.n).toBe(5);
}, 120_000);
