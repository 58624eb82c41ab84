import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import { Payout } from '../../src/modules/payout/payout.entity.ts';
import { payoutSnapshot, transitionPayouts } from '../../src/modules/payout/payout.transition.ts';
import { ethWallet } from '../session/support.ts';
import { type Body, mine, type PayoutFixture, payoutFixture, payoutFollower, signOrder } from './support.ts';

/**
 * Issue #19's money invariant: a payout paid on chain is never reported `failed`. Each case is one way
 * the follower could lose an execution or fail a payout without evidence read at a final block it has
 * processed: a version race with the relayer, a stream that lags the chain, a cursor that moved past an
 * execution, and a batch nonce reused after a database restore.
 */

let f: PayoutFixture;
beforeAll(async () => {
  f = await payoutFixture({ confirmations: [{ blocks: 2 }] });
  await f.approve('USDT');
  await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
  // Give every stream a cursor at the head, so the cases below start from a followed chain.
  await payoutFollower(f).tick();
});
afterAll(() => f?.close());

async function authorized(amount: string) {
  const recipient = Wallet.createRandom().address;
  const { body } = await f.call('/v1/payouts', { network: 'eth', token: 'USDT', amount, recipient });
  const signature = await signOrder(f.payer, body.typed_data);
  const auth = await f.call('/v1/payouts/authorize', { payout: body.payout, signature });
  expect(auth.body.status).toBe('authorized');
  return { id: body.payout as string, typedData: body.typed_data as Body, signature, recipient };
}

/** Executes the signed order from a stranger's wallet, as anyone may; returns the transaction hash. */
async function execute(order: { typedData: Body; signature: string }): Promise<string> {
  const stranger = await ethWallet(f.provider);
  const m = order.typedData.message;
  const router = contractAt('PayoutRouter', f.contracts.payoutRouter, stranger);
  const tx = await router.getFunction('execute')(
    [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
    order.signature,
  );
  await tx.wait();
  return (tx.hash as string).toLowerCase();
}

/** Moves the chain's clock past the order's deadline, then mines `blocks` (70 make it final on anvil). */
async function passDeadline(typedData: Body, blocks: number) {
  const head = (await f.provider.getBlock('latest'))!;
  const gap = Number(typedData.message.deadline) - head.timestamp + 1;
  if (gap > 0) await f.provider.send('evm_increaseTime', [gap]);
  await mine(f.provider, blocks);
}

const row = async (id: string) => {
  const [r] = await f.t.app
    .fork()
    .execute<
      { status: string; failure_reason: string | null; executed_block: string | null; tx_hash: string }[]
    >('select status, failure_reason, executed_block, tx_hash from payouts where id = ?', [id]);
  return r!;
};
const events = async (id: string) =>
  (
    await f.t.app
      .fork()
      .execute<{ event: string }[]>('select event from webhook_events where subject_id = ? order by id', [id])
  ).map((e) => e.event);

/**
 * A fork whose transactions run `competitor` (in its own committed transaction) right before their
 * first `update payouts` statement: another writer moves the row between the follower's read and its
 * guarded write, every time, not by luck of timing.
 */
function racingFork(competitor: () => Promise<void>): () => EntityManager {
  let raced = false;
  const intercept = (tx: EntityManager): EntityManager =>
    new Proxy(tx, {
      get(target, prop) {
        if (prop === 'execute')
          return async (sql: string, ...rest: unknown[]) => {
            if (!raced && /^\s*update payouts t set/.test(sql)) {
              raced = true;
              await competitor();
            }
            return (target.execute as (...a: unknown[]) => unknown)(sql, ...rest);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return () =>
    new Proxy(f.t.app.fork(), {
      get(target, prop) {
        if (prop === 'transactional')
          return <T>(work: (tx: EntityManager) => Promise<T>) =>
            target.transactional((tx) => work(intercept(tx)));
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

describe('the payout transition engine', () => {
  it('refuses two changes of one row in one apply: the second would be reported applied though its guard failed', async () => {
    const order = await authorized('1');
    const em = f.t.app.fork();
    const payout = payoutSnapshot(await em.findOneOrFail(Payout, { id: order.id }));
    const hash = `0x${'cd'.repeat(32)}`;
    await expect(
      em.transactional((tx) =>
        transitionPayouts(
          tx,
          [
            { kind: 'submitted', payout, set: { status: 'submitted', txHash: hash } },
            { kind: 'submitted', payout, set: { status: 'submitted', txHash: hash, executedBlock: 1 } },
          ],
          'report',
        ),
      ),
    ).rejects.toThrow(/two changes of one row in one apply/);
    expect((await row(order.id)).status).toBe('authorized');
    expect(await events(order.id)).toEqual([]);
  });
});

describe('a payout paid on chain is never reported failed', () => {
  it('records an execution whose version race the relayer’s own transition won between read and write', async () => {
    const order = await authorized('4');
    const txHash = await execute(order);
    // The relayer records its broadcast (`submitted` with its hash) while the follower decides.
    const relayerRecords = async () => {
      const em = f.t.app.fork();
      const payout = await em.findOneOrFail(Payout, { id: order.id });
      await em.transactional((tx) =>
        transitionPayouts(
          tx,
          [
            {
              kind: 'submitted',
              payout: payoutSnapshot(payout),
              set: { status: 'submitted', txHash: `0x${'ab'.repeat(32)}` },
            },
          ],
          'raise',
        ),
      );
    };
    await payoutFollower(f, { fork: racingFork(relayerRecords) }).tick();
    expect(await row(order.id)).toMatchObject({ status: 'submitted', tx_hash: txHash });
    expect((await row(order.id)).executed_block).not.toBeNull();
    await mine(f.provider, 2);
    await payoutFollower(f).tick();
    expect((await row(order.id)).status).toBe('completed');
    // Long after its deadline it stays completed: nothing fails a paid payout.
    await passDeadline(order.typedData, 70);
    await payoutFollower(f).tick();
    expect(await row(order.id)).toMatchObject({ status: 'completed', failure_reason: null });
    expect(await events(order.id)).toEqual(['payout.completed']);
  });

  it('does not fail a payout while its stream lags behind its execution, past the deadline at a final block', async () => {
    const order = await authorized('5');
    const txHash = await execute(order);
    await passDeadline(order.typedData, 70);
    // The stream reads nothing this tick (a long backfill elsewhere, a consumer that keeps failing).
    await payoutFollower(f, { maxBlocksPerTick: 0 }).tick();
    expect(await row(order.id)).toMatchObject({ status: 'authorized', failure_reason: null });
    await payoutFollower(f).tick();
    expect(await row(order.id)).toMatchObject({ status: 'completed', tx_hash: txHash });
    expect(await events(order.id)).toEqual(['payout.completed']);
  });

  it('finds and completes an execution the stream’s cursor moved past without recording', async () => {
    const order = await authorized('6');
    const txHash = await execute(order);
    await passDeadline(order.typedData, 70);
    // The cursor jumps over the execution's block, as the dropped "not applied" change once let it.
    const head = (await f.provider.getBlock('latest'))!;
    await f.t.app.fork().execute(
      `update chain_cursors set block_number = ?, block_hash = ?, block_timestamp = ?
          where network = 'eth' and stream = 'payouts'`,
      [head.number, head.hash, head.timestamp],
    );
    await payoutFollower(f).tick();
    expect(await row(order.id)).toMatchObject({ status: 'submitted', tx_hash: txHash, failure_reason: null });
    await mine(f.provider, 2);
    await payoutFollower(f).tick();
    expect((await row(order.id)).status).toBe('completed');
    expect(await events(order.id)).toEqual(['payout.completed']);
  });
});

describe('router nonces after a database restore', () => {
  it('never reuses a batch nonce whose first item was refused while another was paid', async () => {
    const recipients = [Wallet.createRandom().address, Wallet.createRandom().address];
    const { body } = await f.call('/v1/payouts/batch', {
      network: 'eth',
      token: 'USDT',
      items: recipients.map((recipient) => ({ recipient, amount: '1' })),
    });
    const usdt = contractAt('TetherToken', f.contracts.tokens.USDT!.address, f.deployer);
    await (await usdt.getFunction('addBlackList')(recipients[0])).wait();
    const signature = await signOrder(f.payer, body.typed_data);
    const m = body.typed_data.message;
    const stranger = await ethWallet(f.provider);
    const router = contractAt('BatchPayoutRouter', f.contracts.batchPayoutRouter, stranger);
    await (
      await router.getFunction('executeBatch')(
        [m.token, m.merchant, m.items.map((i: Body) => [i.recipient, i.amount]), m.nonce, m.deadline],
        signature,
      )
    ).wait();
    expect(await router.getFunction('isItemPaid')(m.merchant, m.nonce, 0)).toBe(false);
    expect(await router.getFunction('isItemPaid')(m.merchant, m.nonce, 1)).toBe(true);
    // A restore from a backup taken before this batch: the nonce counter goes back.
    await f.t.app
      .fork()
      .execute(`update router_nonces set next = ? where router = ?`, [
        m.nonce,
        f.contracts.batchPayoutRouter,
      ]);
    const { body: next } = await f.call('/v1/payouts/batch', {
      network: 'eth',
      token: 'USDT',
      items: [{ recipient: Wallet.createRandom().address, amount: '1' }],
    });
    expect(BigInt(next.typed_data.message.nonce)).toBeGreaterThan(BigInt(m.nonce));
  });
});
