import { keccak256, MaxUint256, toUtf8Bytes, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import { PAYMENT_ROUTER } from '../../src/modules/session/session.chain.ts';
import {
  ethWallet,
  type FollowerTestOptions,
  followerOf,
  mine,
  type SessionFixture,
  sessionFixture,
  sessionRow,
  step as stepOf,
  webhooksOf,
} from './support.ts';

/** Sessions on the chain follower (D5): matching, depth, reorgs, crashes, expiry. Driven tick by tick. */

let f: SessionFixture;
let payer: Wallet;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  payer = await fundedPayer('100000');
});
afterAll(() => f?.close());

const CALLBACK = 'http://127.0.0.1:9/webhook';
const MINUTE = 60_000;

/** A wallet holding `amount` of USDC and DAI with the router approved for everything. */
async function fundedPayer(amount: string): Promise<Wallet> {
  const w = await ethWallet(f.provider);
  for (const symbol of ['USDC', 'DAI'] as const) {
    const t = f.contracts.tokens[symbol]!;
    const minter = contractAt('TestToken', t.address, f.deployer);
    await (await minter.getFunction('mint')(w.address, BigInt(amount) * 10n ** BigInt(t.decimals))).wait();
    await (
      await contractAt('TestToken', t.address, w).getFunction('approve')(
        f.contracts.paymentRouter,
        MaxUint256,
      )
    ).wait();
  }
  return w;
}

const step = (session: string, action: string, value?: string) => stepOf(f, session, action, value);

const status = async (session: string) => (await f.call('/v1/cashier/status', { session })).body;

/** A session at awaiting_payment for `wallet`; returns its id and the router call to send. */
async function readyToPay(amount = '1', wallet = payer, token = 'USDC') {
  const init = await f.call('/v1/cashier/init', { network: 'eth', token, amount, callback_url: CALLBACK });
  const body = await step(init.body.session, 'wallet_connected', wallet.address);
  expect(body.step).toBe('awaiting_payment');
  return { session: init.body.session, call: body.wallet_action!.params[0]! };
}

/** Sends a router call (as built by the session, or altered) and returns the mined tx hash. */
async function pay(call: { to: string; data: string }, wallet = payer): Promise<string> {
  const nonce = Number(BigInt(await f.provider.send('eth_getTransactionCount', [wallet.address, 'pending'])));
  const tx = await wallet.sendTransaction({ to: call.to, data: call.data, nonce, gasLimit: 200_000n });
  const receipt = await tx.wait();
  expect(receipt?.status).toBe(1);
  return tx.hash.toLowerCase();
}

/**
 * Reports a payment the node saw and then lost (sent with automine off, reported while pending, then
 * dropped from the pool): a transaction that will never be mined.
 */
async function reportDropped(session: string, call: { to: string; data: string }): Promise<string> {
  await f.provider.send('evm_setAutomine', [false]);
  try {
    const nonce = Number(
      BigInt(await f.provider.send('eth_getTransactionCount', [payer.address, 'pending'])),
    );
    const sent = await payer.sendTransaction({ to: call.to, data: call.data, nonce, gasLimit: 200_000n });
    await step(session, 'signature_submitted', sent.hash);
    await f.provider.send('anvil_dropTransaction', [sent.hash]);
    return sent.hash.toLowerCase();
  } finally {
    await f.provider.send('evm_setAutomine', [true]);
  }
}

/** Moves the chain's clock past the session's router deadline and mines a block there. */
/** Mines until the block mined last is final by the service's rule (finalityDepth behind the head). */
async function mineToFinal(): Promise<void> {
  await mine(f, f.t.app.services.sessionChains.network('eth').finalityDepth);
}

async function passRouterDeadline(session: string): Promise<void> {
  const row = await sessionRow(f, session);
  const { timestamp } = (await f.provider.getBlock('latest'))!;
  await f.provider.send('evm_increaseTime', [row.deadline! - timestamp + 1]);
  await mine(f, 1);
}

/** The session's own router call with some arguments replaced. */
function alter(
  call: { to: string; data: string },
  change: Partial<Record<'token' | 'amount' | 'merchant' | 'orderRef', unknown>>,
) {
  const args = PAYMENT_ROUTER.decodeFunctionData('pay', call.data);
  const next = [
    change.token ?? args[0],
    change.amount ?? args[1],
    change.merchant ?? args[2],
    change.orderRef ?? args[3],
    args[4],
  ];
  return { to: call.to, data: PAYMENT_ROUTER.encodeFunctionData('pay', next) };
}

describe('matching (D5)', () => {
  it('finds a payment the session never reported and completes it at the tier’s depth only', async () => {
    const { session, call } = await readyToPay('1');
    const tx = await pay(call);
    const listener = followerOf(f);
    await listener.pass();
    expect(await status(session)).toMatchObject({ step: 'processing', status: 'processing' });
    await mine(f, 1); // depth 2 of 3
    await listener.pass();
    expect((await status(session)).status).toBe('processing');
    await mine(f, 1); // depth 3
    const result = await listener.pass();
    expect(result.completed).toEqual([session]);
    expect(await status(session)).toMatchObject({ step: 'completed', status: 'completed' });
    expect((await sessionRow(f, session)).txHash).toBe(tx);
  });

  it('a larger amount waits for a deeper tier (1000 → 12 blocks)', async () => {
    const { session, call } = await readyToPay('1000');
    await pay(call);
    const listener = followerOf(f);
    await mine(f, 10); // depth 11
    await listener.pass();
    expect((await status(session)).status).toBe('processing');
    await mine(f, 1);
    await listener.pass();
    expect((await status(session)).status).toBe('completed');
  });

  it('falls back to the reported tx hash when the order_ref differs', async () => {
    const { session, call } = await readyToPay('2');
    const tx = await pay(alter(call, { orderRef: keccak256(toUtf8Bytes('something else')) }));
    await step(session, 'signature_submitted', tx);
    await mine(f, 3);
    await followerOf(f).pass();
    expect((await status(session)).status).toBe('completed');
  });

  it('the reported-hash fallback claims only a payment made from the wallet the session connected', async () => {
    const other = await fundedPayer('100');
    const { session, call } = await readyToPay('2');
    const tx = await pay(alter(call, { orderRef: keccak256(toUtf8Bytes('paid by someone else')) }), other);
    await step(session, 'signature_submitted', tx);
    await mine(f, 3);
    await followerOf(f).pass();
    expect((await status(session)).status).toBe('processing');
    expect((await sessionRow(f, session)).payment).toBeNull();
  });

  it('ignores another token, another recipient and a smaller amount; accepts an overpayment', async () => {
    const { session, call } = await readyToPay('3');
    await pay(alter(call, { token: f.contracts.tokens.DAI!.address, amount: 3n * 10n ** 18n }));
    await pay(alter(call, { merchant: f.deployer.address }));
    await pay(alter(call, { amount: 2_999_999n }));
    await mine(f, 5);
    const listener = followerOf(f);
    await listener.pass();
    expect(await status(session)).toMatchObject({ step: 'awaiting_payment', status: 'pending' });
    const good = await pay(alter(call, { amount: 3_500_000n }));
    await mine(f, 3);
    await listener.pass();
    expect((await status(session)).status).toBe('completed');
    const row = await sessionRow(f, session);
    expect([row.txHash, row.paidRaw]).toEqual([good, '3500000']);
    expect(await webhooksOf(f, session)).toMatchObject([
      { event: 'payment.completed', amount: '3', tx_hash: good },
    ]);
  });
});

describe('reorganisations', () => {
  it('a payment reorged out before depth is forgotten, found again when re-included, settled once', async () => {
    const { session, call } = await readyToPay('4');
    const populated = await payer.populateTransaction({ to: call.to, data: call.data, gasLimit: 200_000n });
    const raw = await payer.signTransaction(populated);
    const hash = (await f.provider.broadcastTransaction(raw)).hash.toLowerCase();
    await f.provider.waitForTransaction(hash);
    const listener = followerOf(f);
    await listener.pass();
    const seen = await sessionRow(f, session);
    expect([seen.status, seen.txHash]).toEqual(['processing', hash]);

    // The block holding the payment and the one after are replaced by empty blocks.
    await mine(f, 1);
    await f.provider.send('anvil_reorg', [2, []]);
    expect(await f.provider.send('eth_getTransactionReceipt', [hash])).toBeNull();
    await mine(f, 2); // the lost block would now be deep enough
    const after = await listener.pass();
    expect(after.completed).toEqual([]);
    expect(after.reorged).toEqual([session]);
    expect(await status(session)).toMatchObject({ step: 'awaiting_payment', status: 'pending' });
    expect(await webhooksOf(f, session)).toEqual([]);

    // The same signed transaction lands again, in another block.
    await f.provider.broadcastTransaction(raw);
    await f.provider.waitForTransaction(hash);
    await listener.pass();
    const again = await sessionRow(f, session);
    expect(again.txHash).toBe(hash);
    expect(again.blockHash).not.toBe(seen.blockHash);
    await mine(f, 3);
    await listener.pass();
    expect((await status(session)).status).toBe('completed');
    expect(await webhooksOf(f, session)).toHaveLength(1);
  });

  it('a reported payment reverted away by evm_revert stays processing and completes once re-mined', async () => {
    const { session, call } = await readyToPay('5');
    const snapshot = await f.provider.send('evm_snapshot', []);
    const populated = await payer.populateTransaction({ to: call.to, data: call.data, gasLimit: 200_000n });
    const raw = await payer.signTransaction(populated);
    const hash = (await f.provider.broadcastTransaction(raw)).hash.toLowerCase();
    await f.provider.waitForTransaction(hash);
    await step(session, 'signature_submitted', hash);
    const listener = followerOf(f);
    await listener.pass();
    const first = await sessionRow(f, session);
    expect(first.blockHash).toBeTruthy();

    await f.provider.send('evm_revert', [snapshot]);
    await mine(f, 4); // other blocks at the same heights
    const result = await listener.pass();
    expect(result.reorged).toEqual([session]);
    expect(await status(session)).toMatchObject({ step: 'processing', status: 'processing' });
    expect((await sessionRow(f, session)).txHash).toBeNull();

    await f.provider.broadcastTransaction(raw);
    await f.provider.waitForTransaction(hash);
    await mine(f, 3);
    await listener.pass(); // seen again
    await listener.pass(); // deep enough now
    expect((await status(session)).status).toBe('completed');
    expect(await webhooksOf(f, session)).toHaveLength(1);
  });
});

describe('crash safety', () => {
  /** A follower that advances 3 blocks per tick, so following these payments is many commits. */
  function smallSteps(options: FollowerTestOptions = {}) {
    return followerOf(f, { logs: { initialRange: 3, maxRange: 3 }, maxBlocksPerTick: 3, ...options });
  }

  const cursor = async () =>
    Number(
      (
        await f.t.app
          .fork()
          .execute<{ block_number: string }[]>(
            `select block_number from chain_cursors where network = 'eth' and stream = 'sessions'`,
          )
      )[0]!.block_number,
    );

  it('a follower killed between commits, or inside one, resumes with nothing lost and nothing settled twice', async () => {
    // Catch up first so the ticks below cover only these payments.
    await followerOf(f).pass();
    const sessions: string[] = [];
    for (let i = 0; i < 8; i++) {
      const { session, call } = await readyToPay('1');
      await pay(call);
      sessions.push(session);
      await mine(f, 2);
    }
    const start = await cursor();

    // Killed after three commits: the fourth transaction never starts.
    let commits = 0;
    const killedAfter = smallSteps({
      fence: async () => {
        if (++commits > 3) throw new Error('killed');
      },
    });
    await expect(
      (async () => {
        for (;;) await killedAfter.pass();
      })(),
    ).rejects.toThrow('killed');
    const afterKill = await cursor();
    expect(afterKill).toBeGreaterThan(start);

    // Killed inside a transaction, after the consumer wrote its ledger rows and claims: all rolled back.
    const killedInside = smallSteps({
      wrap: (consumer) => ({
        ...consumer,
        async handle(tx, event) {
          await consumer.handle(tx, event);
          if (event.type === 'block' && event.logs.length > 0) throw new Error('killed inside');
        },
      }),
    });
    await expect(
      (async () => {
        for (;;) await killedInside.pass();
      })(),
    ).rejects.toThrow('killed inside');
    const rolledBack = await cursor();
    const [row] = await f.t.app
      .fork()
      .execute<{ n: string }[]>(
        `select count(*) as n from payments where network = 'eth' and block_number > ?`,
        [rolledBack],
      );
    expect(Number(row?.n)).toBe(0);

    const resumed = smallSteps();
    const open = async () => {
      const statuses = await Promise.all(sessions.map(async (s) => (await status(s)).status));
      return statuses.filter((s) => s !== 'completed').length;
    };
    for (let i = 0; i < 60 && (await open()) > 0; i++) {
      if ((await resumed.pass()).caughtUp) await mine(f, 1);
    }
    for (const session of sessions) {
      expect((await status(session)).status).toBe('completed');
      expect(await webhooksOf(f, session)).toHaveLength(1);
    }
  });

  it('a player report committed between the follower’s read and its claim does not lose the claim', async () => {
    const { session, call } = await readyToPay('1');
    const tx = await pay(call);
    // The player reports the payment while the block's transaction decides its claim: the report
    // commits first and moves the session's version under the follower's guarded write, every time.
    let raced = false;
    const intercept = (em: EntityManager): EntityManager =>
      new Proxy(em, {
        get(target, prop) {
          if (prop === 'execute')
            return async (sql: string, ...rest: unknown[]) => {
              if (!raced && /^\s*update sessions t set/.test(sql)) {
                raced = true;
                await step(session, 'signature_submitted', tx);
              }
              return (target.execute as (...a: unknown[]) => unknown)(sql, ...rest);
            };
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    // The block's own transaction must claim what it records (no after-tick catch-up here).
    const racing = followerOf(f, {
      wrap: (consumer) => ({
        stream: consumer.stream,
        filter: consumer.filter,
        startBlock: consumer.startBlock,
        handle: (em, event) => consumer.handle(intercept(em), event),
      }),
    });
    await racing.pass();
    expect(raced).toBe(true);
    expect((await sessionRow(f, session)).payment?.txHash).toBe(tx);
    await mine(f, 3);
    await followerOf(f).pass();
    expect(await status(session)).toMatchObject({ status: 'completed' });
    expect(await webhooksOf(f, session)).toMatchObject([{ event: 'payment.completed', tx_hash: tx }]);
  });

  it('two passes racing over the same due payments settle each session once', async () => {
    const ready = [];
    for (let i = 0; i < 5; i++) ready.push(await readyToPay('1'));
    const sessions = ready.map((r) => r.session);
    // All five payments in one block, so they become due together.
    await f.provider.send('evm_setAutomine', [false]);
    try {
      let nonce = Number(
        BigInt(await f.provider.send('eth_getTransactionCount', [payer.address, 'pending'])),
      );
      for (const { call } of ready) {
        await payer.sendTransaction({ to: call.to, data: call.data, nonce: nonce++, gasLimit: 200_000n });
      }
      await mine(f, 1);
    } finally {
      await f.provider.send('evm_setAutomine', [true]);
    }
    expect((await followerOf(f).pass()).payments).toBe(5);
    await mine(f, 3);
    // Two leaders at once (split brain): the one whose cursor moved under it is refused and rolls back.
    const passes = await Promise.allSettled([followerOf(f).pass(), followerOf(f).pass()]);
    const completed: string[] = [];
    for (const p of passes) {
      if (p.status === 'rejected') expect(String(p.reason)).toMatch(/cursor moved/);
      else completed.push(...p.value.completed);
    }
    expect(passes.some((p) => p.status === 'fulfilled')).toBe(true);
    // The webhooks tell how often each session was settled.
    const settled = new Set(completed.filter((id) => sessions.includes(id)));
    expect([...settled].sort()).toEqual([...sessions].sort());
    for (const session of sessions) expect(await webhooksOf(f, session)).toHaveLength(1);
  });
});

describe('expiry and timeouts (D5)', () => {
  it('a reported transaction never mined settles failed not_mined only once the router deadline passed on chain', async () => {
    const { session, call } = await readyToPay('1');
    await reportDropped(session, call);
    const late = followerOf(f, { now: () => new Date(Date.now() + 31 * MINUTE) });
    await followerOf(f, { now: () => new Date(Date.now() + 29 * MINUTE) }).pass();
    expect((await status(session)).status).toBe('processing');
    // Past the mining timeout by the wall clock, but the router still accepts the payment: open.
    await late.pass();
    expect((await status(session)).status).toBe('processing');
    await passRouterDeadline(session);
    // The block past the deadline is not final yet: a reorganisation could still mine the payment.
    await late.pass();
    expect((await status(session)).status).toBe('processing');
    await mineToFinal();
    await late.pass();
    expect(await status(session)).toMatchObject({ step: 'failed', status: 'failed' });
    expect((await sessionRow(f, session)).failureReason).toBe('not_mined');
    const [hook] = await webhooksOf(f, session);
    expect(hook).toMatchObject({ event: 'payment.failed', status: 'failed' });
    expect(hook).not.toHaveProperty('tx_hash');
  });

  it('a session whose reported transaction was dropped is paid by the payment sent again before the deadline', async () => {
    const { session, call } = await readyToPay('1');
    await reportDropped(session, call);
    const late = followerOf(f, { now: () => new Date(Date.now() + 31 * MINUTE) });
    await late.pass();
    expect((await status(session)).status).toBe('processing');
    const tx = await pay(call);
    await mine(f, 3);
    await late.pass();
    expect(await status(session)).toMatchObject({ step: 'completed', status: 'completed' });
    expect(await webhooksOf(f, session)).toMatchObject([{ event: 'payment.completed', tx_hash: tx }]);
  });

  it('a pending session expires only once both the wall clock and the chain passed its deadline', async () => {
    const { session } = await readyToPay('1');
    const never = (await f.call('/v1/cashier/init', { callback_url: CALLBACK })).body.session;
    const later = followerOf(f, { now: () => new Date(Date.now() + 61 * MINUTE) });
    await followerOf(f).pass();
    expect((await status(session)).status).toBe('pending');
    // Wall clock past, chain not yet: a payment could still be mined, so no expiry.
    await later.pass();
    expect((await status(session)).status).toBe('pending');
    // The session that never chose a network has no chain deadline.
    expect(await status(never)).toMatchObject({ step: 'failed', status: 'failed' });

    const row = await sessionRow(f, session);
    const { timestamp } = (await f.provider.getBlock('latest'))!;
    await f.provider.send('evm_increaseTime', [row.deadline! - timestamp + 1]);
    await mine(f, 1);
    // Past the deadline on chain, but at a block that is not final yet: still open.
    await later.pass();
    expect((await status(session)).status).toBe('pending');
    await mineToFinal();
    await later.pass();
    expect(await status(session)).toMatchObject({ step: 'failed', status: 'failed' });
    const hooks = await webhooksOf(f, session);
    expect(hooks).toEqual([
      expect.objectContaining({
        event: 'payment.failed',
        status: 'failed',
        session_id: session,
        amount: '1',
      }),
    ]);
    expect(hooks[0]).not.toHaveProperty('tx_hash');
    expect((await sessionRow(f, session)).failureReason).toBe('expired');
  });

  it('a reported transaction that mined without paying the session fails it once the deadline passed', async () => {
    const { session } = await readyToPay('1');
    // A successful transaction that is not a payment (an approval) reported as the payment.
    const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, payer);
    const tx = await usdc.getFunction('approve')(f.contracts.paymentRouter, MaxUint256);
    await tx.wait();
    await step(session, 'signature_submitted', tx.hash);
    const later = followerOf(f, { now: () => new Date(Date.now() + 61 * MINUTE) });
    await mine(f, 3);
    await later.pass();
    expect((await status(session)).status).toBe('processing');
    const row = await sessionRow(f, session);
    const { timestamp } = (await f.provider.getBlock('latest'))!;
    await f.provider.send('evm_increaseTime', [row.deadline! - timestamp + 1]);
    await mine(f, 1);
    await later.pass();
    expect((await status(session)).status).toBe('processing');
    await mineToFinal();
    await later.pass();
    expect(await status(session)).toMatchObject({ step: 'failed', status: 'failed' });
    expect((await sessionRow(f, session)).failureReason).toBe('no_payment');
    expect(await webhooksOf(f, session)).toMatchObject([{ event: 'payment.failed' }]);
  });
});
