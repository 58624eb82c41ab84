import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { ethWallet } from '../session/support.ts';
import { type Body, mine, type PayoutFixture, payoutFixture, payoutFollower, signOrder } from './support.ts';

/**
 * The relay confirmer: the chain follower settles payouts from the router's PayoutExecuted, whoever
 * sent the executing transaction (here a stranger relays the signed order, as anyone may). The relayer
 * itself is covered by test/relay.
 */

let f: PayoutFixture;
let follower: ReturnType<typeof payoutFollower>;

beforeAll(async () => {
  f = await payoutFixture({ confirmations: [{ below: '100', blocks: 2 }, { blocks: 5 }] });
  await f.approve('USDT');
  follower = payoutFollower(f);
});
afterAll(() => f?.close());

async function authorized(amount: string, externalId?: string) {
  const recipient = Wallet.createRandom().address;
  const { body } = await f.call('/v1/payouts', {
    network: 'eth',
    token: 'USDT',
    amount,
    recipient,
    ...(externalId ? { external_id: externalId } : {}),
  });
  const signature = await signOrder(f.payer, body.typed_data);
  const auth = await f.call('/v1/payouts/authorize', { payout: body.payout, signature });
  expect(auth.body.status).toBe('authorized');
  return { id: body.payout as string, typedData: body.typed_data, signature, recipient };
}

/** Relays the order from a stranger's wallet, as anyone may. */
async function execute(order: { typedData: Body; signature: string }): Promise<string> {
  const stranger = await ethWallet(f.provider);
  const m = order.typedData.message;
  const router = contractAt('PayoutRouter', f.contracts.payoutRouter, stranger);
  const tx = await router.getFunction('execute')(
    [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
    order.signature,
  );
  await tx.wait();
  return tx.hash as string;
}

/** Moves the chain's clock past the order's deadline and mines a block there. */
async function passDeadline(typedData: Body) {
  const head = (await f.provider.getBlock('latest'))!;
  const gap = Number(typedData.message.deadline) - head.timestamp + 1;
  if (gap > 0) await f.provider.send('evm_increaseTime', [gap]);
  await mine(f.provider, 1);
}

const status = async (id: string) => (await f.call('/v1/payouts/status', { payout: id })).body;
const events = (id: string) =>
  f.t.app
    .fork()
    .execute<{ event: string; body: string }[]>(
      `select event, body from webhook_events where subject_id = ? order by id`,
      [id],
    );

describe('the relay confirmer', () => {
  it('completes an executed payout at its depth, with exactly the amount moved and one webhook', async () => {
    const order = await authorized('12.345678', 'po-confirm-1');
    const before = await f.balance('USDT', f.payer.address);
    const txHash = await execute(order);
    await follower.tick();
    expect(await status(order.id)).toMatchObject({ status: 'submitted', tx_hash: txHash.toLowerCase() });
    await mine(f.provider, 1);
    await follower.tick();
    const done = await status(order.id);
    expect(done).toMatchObject({
      status: 'completed',
      tx_hash: txHash.toLowerCase(),
      external_id: 'po-confirm-1',
    });
    expect(await f.balance('USDT', order.recipient)).toBe(12_345_678n);
    expect(before - (await f.balance('USDT', f.payer.address))).toBe(12_345_678n);
    await follower.tick();
    const sent = await events(order.id);
    expect(sent.map((e) => e.event)).toEqual(['payout.completed']);
    const body = JSON.parse(sent[0]!.body);
    expect(body).toMatchObject({
      event: 'payout.completed',
      payout_id: order.id,
      merchant_id: f.merchant.id,
      status: 'completed',
      external_id: 'po-confirm-1',
      network: 'eth',
      token: 'USDT',
      amount: '12.345678',
      recipient: order.recipient,
      tx_hash: txHash.toLowerCase(),
    });
    expect(body.failure_reason).toBeUndefined();
  });

  it('waits the larger tier for a larger amount', async () => {
    const order = await authorized('150');
    await execute(order);
    await follower.tick();
    await mine(f.provider, 3);
    await follower.tick();
    expect((await status(order.id)).status).toBe('submitted');
    await mine(f.provider, 1);
    await follower.tick();
    expect((await status(order.id)).status).toBe('completed');
  });

  it('takes an execution back when its block leaves the chain, and completes on the new one', async () => {
    const order = await authorized('3');
    const snapshot = await f.provider.send('evm_snapshot', []);
    await execute(order);
    await follower.tick();
    expect((await status(order.id)).status).toBe('submitted');
    await f.provider.send('evm_revert', [snapshot]);
    await mine(f.provider, 3);
    await follower.tick();
    const back = await status(order.id);
    expect(back.status).toBe('submitted');
    const [row] = await f.t.app
      .fork()
      .execute<{ executed_block: string | null }[]>('select executed_block from payouts where id = ?', [
        order.id,
      ]);
    expect(row?.executed_block).toBeNull();
    expect(await f.balance('USDT', order.recipient)).toBe(0n);
    const txHash = await execute(order);
    await follower.tick();
    await mine(f.provider, 2);
    await follower.tick();
    expect(await status(order.id)).toMatchObject({ status: 'completed', tx_hash: txHash.toLowerCase() });
    expect(await f.balance('USDT', order.recipient)).toBe(3_000_000n);
    expect((await events(order.id)).map((e) => e.event)).toEqual(['payout.completed']);
  });

  it('expires an unsigned payout only once its deadline is past at a final block, with payout.failed', async () => {
    const recipient = Wallet.createRandom().address;
    const { body } = await f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount: '1', recipient });
    await passDeadline(body.typed_data);
    await follower.tick();
    // Past the deadline at the head, not yet at a final block: the merchant may still have relayed it.
    expect((await status(body.payout)).status).toBe('pending');
    await mine(f.provider, 70);
    await follower.tick();
    expect(await status(body.payout)).toMatchObject({ status: 'failed', failure_reason: 'expired' });
    const sent = await events(body.payout);
    expect(sent.map((e) => e.event)).toEqual(['payout.failed']);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({
      status: 'failed',
      failure_reason: 'expired',
      amount: '1',
    });
  });

  it('fails an authorized payout only once its deadline is final on chain, with the relay’s last reason', async () => {
    const order = await authorized('1');
    await f.t.app
      .fork()
      .execute(`update relay_requests set last_error = ? where subject_id = ?`, [
        'insufficient_allowance: the router may pull 0',
        order.id,
      ]);
    await passDeadline(order.typedData);
    await follower.tick();
    // Past the deadline at the head, but not yet at a final block: still open.
    expect((await status(order.id)).status).toBe('authorized');
    await mine(f.provider, 70);
    await follower.tick();
    expect(await status(order.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'insufficient_allowance',
    });
    expect((await events(order.id)).map((e) => e.event)).toEqual(['payout.failed']);
    // The order can indeed no longer execute.
    await expect(execute(order)).rejects.toThrow();
  });

  it('settles an order the merchant relayed itself without authorizing, and keeps following the chain', async () => {
    const recipient = Wallet.createRandom().address;
    const { body } = await f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount: '2', recipient });
    const signature = await signOrder(f.payer, body.typed_data);
    const txHash = await execute({ typedData: body.typed_data, signature });
    await follower.tick();
    await mine(f.provider, 1);
    await follower.tick();
    expect(await status(body.payout)).toMatchObject({ status: 'completed', tx_hash: txHash.toLowerCase() });
    expect(await f.balance('USDT', recipient)).toBe(2_000_000n);
    // Authorizing it afterwards changes nothing and relays nothing.
    expect((await f.call('/v1/payouts/authorize', { payout: body.payout, signature })).body.status).toBe(
      'completed',
    );
  });
});
