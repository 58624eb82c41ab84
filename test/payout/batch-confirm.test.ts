import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { resubmitBatch } from '../../src/modules/batch/batch.authorize.ts';
import { ethWallet } from '../session/support.ts';
import { type Body, mine, type PayoutFixture, payoutFixture, payoutFollower, signOrder } from './support.ts';

/**
 * Batch items settled from the router's events, whoever relays the signed batch (here a stranger; the
 * relayer's own submissions are the relay tests'): a blacklisted recipient stays unpaid and noted, the
 * next submission is scheduled, paid items are never paid twice, and unpaid items fail only once the
 * deadline is final.
 */

let f: PayoutFixture;
let follower: ReturnType<typeof payoutFollower>;
beforeAll(async () => {
  f = await payoutFixture({ confirmations: [{ blocks: 2 }] });
  await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
  follower = payoutFollower(f);
});
afterAll(() => f?.close());

const usdt = () => contractAt('TetherToken', f.contracts.tokens.USDT!.address, f.deployer);

async function authorizedBatch(n: number) {
  const recipients = Array.from({ length: n }, () => Wallet.createRandom().address);
  const { body } = await f.call('/v1/payouts/batch', {
    network: 'eth',
    token: 'USDT',
    items: recipients.map((recipient, i) => ({ recipient, amount: `${i + 1}` })),
  });
  const signature = await signOrder(f.payer, body.typed_data);
  const auth = await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
  expect(auth.body.status).toBe('authorized');
  return { id: body.batch as string, typedData: body.typed_data, signature, recipients };
}

async function submit(order: { typedData: Body; signature: string }) {
  const stranger = await ethWallet(f.provider);
  const m = order.typedData.message;
  const router = contractAt('BatchPayoutRouter', f.contracts.batchPayoutRouter, stranger);
  const tx = await router.getFunction('executeBatch')(
    [m.token, m.merchant, m.items.map((i: Body) => [i.recipient, i.amount]), m.nonce, m.deadline],
    order.signature,
  );
  await tx.wait();
  return tx.hash as string;
}

const status = async (id: string) => (await f.call('/v1/payouts/batch/status', { batch: id })).body;

describe('batch settlement', () => {
  it('pays every item once, retries a refused one after it is unblocked, and completes', async () => {
    const order = await authorizedBatch(3);
    await (await usdt().getFunction('addBlackList')(order.recipients[1])).wait();
    const first = await submit(order);
    await follower.tick();
    await mine(f.provider, 1);
    await follower.tick();
    let batch = await status(order.id);
    expect(batch.status).toBe('processing');
    expect(batch.items.map((i: Body) => i.status)).toEqual(['completed', 'authorized', 'completed']);
    expect(batch.items[0].tx_hash).toBe(first.toLowerCase());
    const [noted] = await f.t.app
      .fork()
      .execute<{ relay_note: string }[]>('select relay_note from payouts where id = ?', [
        batch.items[1].payout,
      ]);
    expect(noted?.relay_note).toMatch(/^transfer_failed:/);
    // The next submission is scheduled with a backoff, once.
    const jobs = await f.t.app
      .fork()
      .execute<{ key: string }[]>(
        `select key from graphile_worker.jobs where task_identifier = 'batch_resubmit'`,
      );
    expect(jobs.map((j) => j.key)).toEqual([`batch_resubmit:${order.id}:2`]);

    await (await usdt().getFunction('removeBlackList')(order.recipients[1])).wait();
    expect(await resubmitBatch(f.t.app.fork(), order.id, 2)).toBe(true);
    expect(await resubmitBatch(f.t.app.fork(), order.id, 2)).toBe(false);
    const second = await submit(order);
    await follower.tick();
    await mine(f.provider, 1);
    await follower.tick();
    batch = await status(order.id);
    expect(batch.status).toBe('completed');
    expect(batch.items[1]).toMatchObject({ status: 'completed', tx_hash: second.toLowerCase() });
    // Each recipient holds exactly its amount: nothing paid twice across submissions.
    const token = usdt();
    for (const [i, r] of order.recipients.entries())
      expect(await token.getFunction('balanceOf')(r)).toBe(BigInt(i + 1) * 1_000_000n);
    const events = await f.t.app
      .fork()
      .execute<{ event: string; body: string }[]>(
        `select event, body from webhook_events where subject_id in (select id from payouts where batch_id = ?)`,
        [order.id],
      );
    expect(events.map((e) => e.event)).toEqual(Array(3).fill('payout.completed'));
    expect(events.map((e) => JSON.parse(e.body).batch_index).sort()).toEqual([0, 1, 2]);
    expect(JSON.parse(events[0]!.body).batch_id).toBe(order.id);
  });

  it('settles partially_completed: the item still refused at the final deadline fails with the token’s reason', async () => {
    const order = await authorizedBatch(2);
    await (await usdt().getFunction('addBlackList')(order.recipients[0])).wait();
    await submit(order);
    await follower.tick();
    await mine(f.provider, 1);
    await follower.tick();
    const head = (await f.provider.getBlock('latest'))!;
    await f.provider.send('evm_increaseTime', [
      Number(order.typedData.message.deadline) - head.timestamp + 1,
    ]);
    await mine(f.provider, 70);
    await follower.tick();
    const batch = await status(order.id);
    expect(batch.status).toBe('partially_completed');
    expect(batch.items.map((i: Body) => [i.status, i.failure_reason])).toEqual([
      ['failed', 'transfer_failed'],
      ['completed', undefined],
    ]);
    await (await usdt().getFunction('removeBlackList')(order.recipients[0])).wait();
  });

  it('settles a batch of 100, each recipient holding exactly its amount', async () => {
    const recipients = Array.from({ length: 100 }, () => Wallet.createRandom().address);
    const { status: code, body } = await f.call('/v1/payouts/batch', {
      network: 'eth',
      token: 'USDT',
      items: recipients.map((recipient, i) => ({
        recipient,
        amount: `${Math.floor((i + 1) / 100)}.${String((i + 1) % 100).padStart(2, '0')}`,
      })),
    });
    expect(code).toBe(200);
    expect(body.total).toBe('50.5');
    const signature = await signOrder(f.payer, body.typed_data);
    await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
    await submit({ typedData: body.typed_data, signature });
    await follower.tick();
    await mine(f.provider, 1);
    await follower.tick();
    const batch = await status(body.batch);
    expect(batch.status).toBe('completed');
    const token = usdt();
    const balances = await Promise.all(recipients.map((r) => token.getFunction('balanceOf')(r)));
    expect(balances).toEqual(recipients.map((_, i) => BigInt(i + 1) * 10_000n));
  });
});
