import { Wallet } from 'ethers';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { sendEvm } from '../../src/relay/evm-pipeline.ts';
import { ethWallet } from '../session/support.ts';
import { type Body, mine, type PayoutFixture, payoutFixture, payoutFollower, signOrder } from './support.ts';

/**
 * What a failed payout says, and when it is decided: a relay refused for the allowance until its
 * deadline fails `insufficient_allowance` (the relay given up at the deadline does not turn it into
 * `expired`), with every retry's reason on the payout while it waits; and another order executed under
 * the payout's nonce fails it `nonce_used` only once that block is final (a reorganisation before that
 * takes the conflict back). The relay job is run by hand and the follower ticked by the test.
 */

let f: PayoutFixture;
let follower: ReturnType<typeof payoutFollower>;
let token: string;

beforeAll(async () => {
  f = await payoutFixture();
  follower = payoutFollower(f);
  token = await f.t.operatorToken();
});
afterEach(() => vi.useRealTimers());
afterAll(() => f?.close());

async function authorized(amount: string) {
  await f.approve('USDT');
  const recipient = Wallet.createRandom().address;
  const { body } = await f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount, recipient });
  const signature = await signOrder(f.payer, body.typed_data);
  expect((await f.call('/v1/payouts/authorize', { payout: body.payout, signature })).body.status).toBe(
    'authorized',
  );
  return { id: body.payout as string, typedData: body.typed_data as Body, recipient };
}

const status = async (id: string) => (await f.call('/v1/payouts/status', { payout: id })).body;
const operatorView = async (id: string) => {
  const { data, errors } = await f.t.graphql(
    token,
    `{ payout(id: "${id}") { status failureReason relayNote lastRelayReason } }`,
  );
  expect(errors).toBeUndefined();
  return (data as Body).payout;
};
const relayOf = async (id: string) => {
  const [row] = await f.t.app
    .fork()
    .execute<Body[]>(`select id, status, last_error from relay_requests where subject_id = ?`, [id]);
  return row;
};
const events = (id: string) =>
  f.t.app
    .fork()
    .execute<{ event: string; body: string }[]>(
      `select event, body from webhook_events where subject_id = ? order by id`,
      [id],
    );

/** Moves the chain's clock past the order's deadline, then makes that block final. */
async function passDeadlineFinally(typedData: Body) {
  const head = (await f.provider.getBlock('latest'))!;
  const gap = Number(typedData.message.deadline) - head.timestamp + 1;
  if (gap > 0) await f.provider.send('evm_increaseTime', [gap]);
  await mine(f.provider, 70);
}

/** Executes `order` signed by the payout wallet, from a stranger's wallet, as anyone may. */
async function execute(message: Body, typedData: Body) {
  const signature = await signOrder(f.payer, { ...typedData, message });
  const stranger = await ethWallet(f.provider);
  const router = contractAt('PayoutRouter', f.contracts.payoutRouter, stranger);
  const tx = await router.getFunction('execute')(
    [message.token, message.merchant, message.recipient, message.amount, message.nonce, message.deadline],
    signature,
  );
  await tx.wait();
}

describe('payout failure reasons', () => {
  it('another order executed under the nonce fails the payout nonce_used only at a final block', async () => {
    const order = await authorized('2');
    await follower.tick();
    const other = { ...order.typedData.message, recipient: Wallet.createRandom().address, amount: '1000000' };
    const snapshot = await f.provider.send('evm_snapshot', []);
    await execute(other, order.typedData);
    await follower.tick();
    // Seen at the head only: a reorganisation may still take it away.
    expect((await status(order.id)).status).toBe('authorized');
    expect((await operatorView(order.id)).relayNote).toMatch(/^nonce_used: /);
    expect(await events(order.id)).toEqual([]);
    // It does: the payout is open again, with nothing noted against it.
    await f.provider.send('evm_revert', [snapshot]);
    await mine(f.provider, 3);
    await follower.tick();
    expect(await operatorView(order.id)).toMatchObject({ status: 'authorized', relayNote: null });
    const [row] = await f.t.app
      .fork()
      .execute<Body[]>(`select conflict_block from payouts where id = ?`, [order.id]);
    expect(row.conflict_block).toBeNull();
    // Executed again, and this time its block becomes final: nonce_used.
    await execute(other, order.typedData);
    await follower.tick();
    expect((await status(order.id)).status).toBe('authorized');
    await mine(f.provider, 70);
    await follower.tick();
    expect(await status(order.id)).toMatchObject({ status: 'failed', failure_reason: 'nonce_used' });
    expect((await events(order.id)).map((e) => e.event)).toEqual(['payout.failed']);
  });

  it('a batch submission that waits says why on every open item', async () => {
    await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
    const recipients = Array.from({ length: 3 }, () => Wallet.createRandom().address);
    const { body } = await f.call('/v1/payouts/batch', {
      network: 'eth',
      token: 'USDT',
      items: recipients.map((recipient) => ({ recipient, amount: '1' })),
    });
    expect(body.error).toBeUndefined();
    const signature = await signOrder(f.payer, body.typed_data);
    await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
    const relayer = f.t.app.services.relayer;
    const network = relayer.network('eth');
    const [relay] = await f.t.app
      .fork()
      .execute<Body[]>(`select id from relay_requests where subject_id like ?`, [`${body.batch}#%`]);
    const balance = await f.provider.getBalance(f.relayer.address);
    await f.provider.send('anvil_setBalance', [f.relayer.address, '0x0']);
    try {
      await sendEvm(relayer, network, Number(relay!.id));
    } finally {
      await f.provider.send('anvil_setBalance', [f.relayer.address, `0x${balance.toString(16)}`]);
    }
    const items = await f.t.app
      .fork()
      .execute<{ id: string }[]>(`select id from payouts where batch_id = ? order by batch_index`, [
        body.batch,
      ]);
    expect(items).toHaveLength(3);
    for (const item of items)
      expect(await operatorView(item.id)).toMatchObject({
        status: 'authorized',
        relayNote: expect.stringMatching(/out of gas/),
      });
  });

  // Last: the chain's clock stays ahead of the service's after it.
  it('a relay refused for the allowance until the deadline fails insufficient_allowance, the reason visible while it waits', async () => {
    const order = await authorized('4');
    await f.approve('USDT', 0n);
    const relayer = f.t.app.services.relayer;
    const network = relayer.network('eth');
    const relay = await relayOf(order.id);
    await sendEvm(relayer, network, Number(relay.id));
    // Waiting for a retry: the merchant's view is unchanged, operators see why.
    expect(await status(order.id)).toMatchObject({ status: 'authorized' });
    expect((await status(order.id)).failure_reason).toBeUndefined();
    expect(await operatorView(order.id)).toMatchObject({
      status: 'authorized',
      failureReason: null,
      relayNote: expect.stringMatching(/^insufficient_allowance: /),
      lastRelayReason: 'insufficient_allowance',
    });
    // The relay's wall clock passes the deadline: it is given up, and says what kept it back.
    vi.useFakeTimers({ toFake: ['Date'], now: (Number(order.typedData.message.deadline) + 5) * 1000 });
    await sendEvm(relayer, network, Number(relay.id));
    vi.useRealTimers();
    expect(await relayOf(order.id)).toMatchObject({
      status: 'abandoned',
      last_error: expect.stringMatching(/^insufficient_allowance: /),
    });
    expect((await operatorView(order.id)).lastRelayReason).toBe('insufficient_allowance');
    // Settled on chain evidence at a final block past the deadline, with the concrete reason.
    await passDeadlineFinally(order.typedData);
    await follower.tick();
    expect(await status(order.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'insufficient_allowance',
    });
    const sent = await events(order.id);
    expect(sent.map((e) => e.event)).toEqual(['payout.failed']);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ failure_reason: 'insufficient_allowance' });
  });
});
