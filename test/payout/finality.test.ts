import { Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { ethWallet } from '../session/support.ts';
import { workerAnvil } from '../support/anvil.ts';
import { type LyingNode, lyingNode } from '../support/lying-node.ts';
import { type Body, mine, type PayoutFixture, payoutFixture, payoutFollower, signOrder } from './support.ts';

/**
 * A payout and a batch against a node whose `finalized` block is its latest (Hardhat's node): an execution
 * reverted away three blocks deep, before the depth of 6, completes nothing and sends no webhook;
 * executed again, the payout completes once.
 */

let node: LyingNode;
let f: PayoutFixture;
let follower: ReturnType<typeof payoutFollower>;

beforeAll(async () => {
  node = await lyingNode((await workerAnvil()).rpcUrl);
  node.finalized = 'latest';
  f = await payoutFixture({ rpcUrl: node.url, confirmations: [{ blocks: 6 }] });
  await f.approve('USDT');
  follower = payoutFollower(f);
});
afterAll(async () => {
  await f?.close();
  await node?.close();
});

/** Relays the signed order from a stranger's wallet, as anyone may. */
async function execute(typedData: Body, signature: string): Promise<string> {
  const stranger = await ethWallet(f.provider);
  const m = typedData.message;
  const router = contractAt('PayoutRouter', f.contracts.payoutRouter, stranger);
  const tx = await router.getFunction('execute')(
    [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
    signature,
  );
  await tx.wait();
  return (tx.hash as string).toLowerCase();
}

const status = async (id: string) => (await f.call('/v1/payouts/status', { payout: id })).body;
const events = (id: string) =>
  f.t.app
    .fork()
    .execute<{ event: string; body: string }[]>(
      'select event, body from webhook_events where subject_id = ? order by id',
      [id],
    );

it('an execution reverted before depth completes nothing and sends nothing; executed again, it completes once', async () => {
  const recipient = Wallet.createRandom().address;
  const { body } = await f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount: '3', recipient });
  const signature = await signOrder(f.payer, body.typed_data);
  expect((await f.call('/v1/payouts/authorize', { payout: body.payout, signature })).body.status).toBe(
    'authorized',
  );
  const id = body.payout as string;
  await follower.tick();

  const snapshot = await f.provider.send('evm_snapshot', []);
  const lost = await execute(body.typed_data, signature);
  await mine(f.provider, 2); // three deep, short of 6
  await follower.tick();
  expect(await status(id)).toMatchObject({ status: 'submitted', tx_hash: lost });

  await f.provider.send('evm_revert', [snapshot]);
  const liar = await follower.tick(); // the node's finalized went back with its head: nothing settles
  await mine(f.provider, 10); // the lost block would be 10 deep by now
  const after = await follower.tick();
  expect((await status(id)).status).toBe('submitted');
  expect(await events(id)).toEqual([]);
  expect(after.reorg).toBeDefined();
  const [row] = await f.t.app
    .fork()
    .execute<{ executed_block: string | null }[]>('select executed_block from payouts where id = ?', [id]);
  expect(row?.executed_block).toBeNull();
  expect(await events(id)).toEqual([]);
  expect(await f.balance('USDT', recipient)).toBe(0n);
  expect(liar.inconsistent).toMatch(/finalized block went back/);

  const paid = await execute(body.typed_data, signature);
  await follower.tick();
  await mine(f.provider, 4);
  await follower.tick();
  expect((await status(id)).status).toBe('submitted'); // five deep
  await mine(f.provider, 1);
  await follower.tick();
  expect(await status(id)).toMatchObject({ status: 'completed', tx_hash: paid });
  await mine(f.provider, 6);
  await follower.tick();
  expect((await events(id)).map((e) => [e.event, JSON.parse(e.body).tx_hash])).toEqual([
    ['payout.completed', paid],
  ]);
  expect(await f.balance('USDT', recipient)).toBe(3_000_000n);
});

it('a batch execution reverted before depth completes no item and sends nothing; executed again, each item completes once', async () => {
  await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
  const recipients = [Wallet.createRandom().address, Wallet.createRandom().address];
  const { body } = await f.call('/v1/payouts/batch', {
    network: 'eth',
    token: 'USDT',
    items: recipients.map((recipient, i) => ({ recipient, amount: `${i + 1}` })),
  });
  const signature = await signOrder(f.payer, body.typed_data);
  expect((await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature })).body.status).toBe(
    'authorized',
  );
  const batch = body.batch as string;
  const m = body.typed_data.message;
  const executeBatch = async () => {
    const router = contractAt(
      'BatchPayoutRouter',
      f.contracts.batchPayoutRouter,
      await ethWallet(f.provider),
    );
    const tx = await router.getFunction('executeBatch')(
      [m.token, m.merchant, m.items.map((i: Body) => [i.recipient, i.amount]), m.nonce, m.deadline],
      signature,
    );
    await tx.wait();
    return (tx.hash as string).toLowerCase();
  };
  const items = () =>
    f.t.app
      .fork()
      .execute<{ status: string; executed_block: string | null }[]>(
        'select status, executed_block from payouts where batch_id = ? order by batch_index',
        [batch],
      );
  const itemEvents = () =>
    f.t.app
      .fork()
      .execute<{ event: string; body: string }[]>(
        'select event, body from webhook_events where subject_id in (select id from payouts where batch_id = ?) order by id',
        [batch],
      );
  await follower.tick();

  const snapshot = await f.provider.send('evm_snapshot', []);
  await executeBatch();
  await mine(f.provider, 2); // three deep, short of 6
  await follower.tick();
  await f.provider.send('evm_revert', [snapshot]);
  await follower.tick(); // the liar's finalized went back: nothing settles on it
  await mine(f.provider, 10);
  expect((await follower.tick()).reorg).toBeDefined();
  expect((await items()).map((i) => i.executed_block)).toEqual([null, null]);
  expect((await items()).some((i) => i.status === 'completed')).toBe(false);
  expect(await itemEvents()).toEqual([]);
  expect(await f.balance('USDT', recipients[0]!)).toBe(0n);

  const paid = await executeBatch();
  await follower.tick();
  await mine(f.provider, 5);
  await follower.tick();
  await mine(f.provider, 6);
  await follower.tick();
  expect((await items()).map((i) => i.status)).toEqual(['completed', 'completed']);
  const sent = await itemEvents();
  expect(sent.map((e) => [e.event, JSON.parse(e.body).tx_hash])).toEqual([
    ['payout.completed', paid],
    ['payout.completed', paid],
  ]);
  expect(await f.balance('USDT', recipients[0]!)).toBe(1_000_000n);
  expect(await f.balance('USDT', recipients[1]!)).toBe(2_000_000n);
});
