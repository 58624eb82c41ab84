import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { type Body, type PayoutFixture, payoutFixture, signOrder, until } from './support.ts';

/**
 * Payouts relayed by the service's own relayer, end to end in one process: authorize → the
 * `relay_request` job signs, stores and broadcasts → the follower sees PayoutExecuted → completed at
 * depth with the webhook. Multi-process and crash cases are relay-processes.test.ts.
 */

let f: PayoutFixture;
let worker: Worker;
let miner: ReturnType<typeof setInterval>;

beforeAll(async () => {
  f = await payoutFixture({ env: { WORKER_CONCURRENCY: '4' } });
  await f.approve('USDT');
  worker = await startWorker(f.t.app, {
    followers: { payoutStartBlock: f.startBlock, sessionStartBlock: f.startBlock, standbyRetryMs: 100 },
  });
  // Blocks keep coming, as on a live chain, so relays reach their depth.
  miner = setInterval(() => void f.provider.send('anvil_mine', ['0x1']).catch(() => {}), 250);
});
afterAll(async () => {
  clearInterval(miner);
  await worker?.stop();
  await f?.close();
});

async function authorized(amount: string) {
  const recipient = Wallet.createRandom().address;
  const { body } = await f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount, recipient });
  const signature = await signOrder(f.payer, body.typed_data);
  const auth = await f.call('/v1/payouts/authorize', { payout: body.payout, signature });
  expect(auth.body.status).toBe('authorized');
  return { id: body.payout as string, recipient, typedData: body.typed_data };
}

const status = async (id: string): Promise<Body> => (await f.call('/v1/payouts/status', { payout: id })).body;

describe('the relayer', () => {
  it('relays an authorized payout to completed: exactly the amount moved, one transaction, one webhook', async () => {
    const order = await authorized('4.25');
    const done = await until(
      () => status(order.id),
      (s) => s.status === 'completed' || s.status === 'failed',
    );
    expect(done.status).toBe('completed');
    expect(await f.balance('USDT', order.recipient)).toBe(4_250_000n);
    // The payout completes from the router's event; the relayer's watcher records its transaction as
    // mined in its own step of the follower's tick, a moment later.
    const txs = await until(
      () =>
        f.t.app.fork().execute<{ hash: string; status: string; nonce: string }[]>(
          `select t.hash, t.status, t.nonce from relay_transactions t join relay_requests r on r.id = t.request_id
              where r.subject_id = ?`,
          [order.id],
        ),
      (rows) => rows.some((t) => t.status === 'mined'),
      10_000,
    );
    expect(txs).toHaveLength(1);
    expect(txs[0]).toMatchObject({ status: 'mined', hash: done.tx_hash });
    const receipt = await f.provider.getTransactionReceipt(done.tx_hash);
    expect(receipt?.from).toBe(f.relayer.address);
    const events = await f.t.app
      .fork()
      .execute<{ event: string; body: string }[]>(
        'select event, body from webhook_events where subject_id = ?',
        [order.id],
      );
    expect(events.map((e) => e.event)).toEqual(['payout.completed']);
    expect(JSON.parse(events[0]!.body).tx_hash).toBe(done.tx_hash);
  });

  it('relays many at once with distinct nonces, each paid once', async () => {
    const orders = await Promise.all(Array.from({ length: 10 }, (_, i) => authorized(`1.${i}`)));
    const settled = await until(
      () => Promise.all(orders.map((o) => status(o.id))),
      (all) => all.every((s) => s.status === 'completed' || s.status === 'failed'),
      60_000,
    );
    expect(settled.map((s) => s.status)).toEqual(Array(10).fill('completed'));
    for (const [i, o] of orders.entries())
      expect(await f.balance('USDT', o.recipient)).toBe(1_000_000n + BigInt(i) * 100_000n);
    const nonces = await f.t.app
      .fork()
      .execute<{ nonce: string }[]>(
        `select nonce from relay_transactions where status = 'mined' and network = 'eth'`,
      );
    expect(new Set(nonces.map((n) => n.nonce)).size).toBe(nonces.length);
  });

  it('relays a batch: items paid once across resubmissions, a refused recipient paid after it is unblocked', async () => {
    await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
    const recipients = Array.from({ length: 3 }, () => Wallet.createRandom().address);
    const usdt = contractAt('TetherToken', f.contracts.tokens.USDT!.address, f.deployer);
    await (await usdt.getFunction('addBlackList')(recipients[2])).wait();
    const { body } = await f.call('/v1/payouts/batch', {
      network: 'eth',
      token: 'USDT',
      items: recipients.map((recipient, i) => ({ recipient, amount: `${i + 1}` })),
    });
    const signature = await signOrder(f.payer, body.typed_data);
    await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
    const batchStatus = async () => (await f.call('/v1/payouts/batch/status', { batch: body.batch })).body;
    const partial = await until(
      batchStatus,
      (b: Body) => b.items[0].status === 'completed' && b.items[1].status === 'completed',
    );
    expect(partial.status).toBe('processing');
    expect(partial.items[2].status).not.toBe('completed');
    await (await usdt.getFunction('removeBlackList')(recipients[2])).wait();
    const done = await until(batchStatus, (b: Body) => b.status === 'completed', 40_000);
    expect(done.status).toBe('completed');
    for (const [i, r] of recipients.entries())
      expect(await f.balance('USDT', r)).toBe(BigInt(i + 1) * 1_000_000n);
    const submissions = await f.t.app
      .fork()
      .execute<{ subject_id: string }[]>(
        `select subject_id from relay_requests where subject_id like ? order by id`,
        [`${body.batch}#%`],
      );
    expect(submissions.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
