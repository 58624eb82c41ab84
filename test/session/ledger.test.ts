import { keccak256, toUtf8Bytes, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_ROUTER } from '../../src/modules/session/session.chain.ts';
import {
  followerOf,
  mine,
  routerPayer,
  type SessionFixture,
  type StepBody,
  sessionFixture,
  sessionRow,
  webhooksOf,
} from './support.ts';

/**
 * The payments ledger: one on-chain transfer pays at most one session, whatever sessions report and
 * whenever the follower reads it; payees are pinned when a session gets its network.
 */

let f: SessionFixture;
let payer: Wallet;
const MINUTE = 60_000;
const CALLBACK = 'http://127.0.0.1:9/webhook';
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  payer = await routerPayer(f);
});
afterAll(() => f?.close());

async function step(session: string, action: string, value?: string) {
  return f.call('/v1/cashier/step', { session, action, ...(value === undefined ? {} : { value }) });
}
const status = async (session: string) => (await f.call('/v1/cashier/status', { session })).body;

/** A session of `f`'s merchant at awaiting_payment for the payer. */
async function readyToPay(amount = '1'): Promise<{ session: string; call: { to: string; data: string } }> {
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount,
    callback_url: CALLBACK,
  });
  const body = (await step(init.body.session, 'wallet_connected', payer.address)).body;
  expect(body.step).toBe('awaiting_payment');
  return { session: init.body.session, call: body.wallet_action!.params[0]! };
}

/** The session's router call with another order reference (it then pays no session by `order_ref`). */
function foreignRef(call: { to: string; data: string }) {
  const args = PAYMENT_ROUTER.decodeFunctionData('pay', call.data);
  const data = PAYMENT_ROUTER.encodeFunctionData('pay', [
    args[0],
    args[1],
    args[2],
    keccak256(toUtf8Bytes(`not a session ${Math.random()}`)),
    args[4],
  ]);
  return { to: call.to, data };
}

async function pay(call: { to: string; data: string }): Promise<string> {
  const nonce = Number(BigInt(await f.provider.send('eth_getTransactionCount', [payer.address, 'pending'])));
  const tx = await payer.sendTransaction({ to: call.to, data: call.data, nonce, gasLimit: 200_000n });
  expect((await tx.wait())?.status).toBe(1);
  return tx.hash.toLowerCase();
}

/** Ticks (mining a block between) until `done` or 20 ticks. */
async function follow(done: () => Promise<boolean>, options = {}) {
  const follower = followerOf(f, options);
  for (let i = 0; i < 20; i++) {
    await follower.pass();
    if (await done()) return;
    await mine(f, 1);
  }
}

describe('one transfer pays one session', () => {
  it('two sessions reporting one transaction: the first report is paid, the other never is', async () => {
    const a = await readyToPay('1');
    const b = await readyToPay('1');
    const tx = await pay(foreignRef(a.call));
    expect((await step(a.session, 'signature_submitted', tx)).status).toBe(200);
    expect((await step(b.session, 'signature_submitted', tx)).status).toBe(200);
    await follow(async () => (await status(a.session)).status === 'completed');
    expect((await status(a.session)).status).toBe('completed');
    expect((await status(b.session)).status).toBe('processing');

    // A rescan of the whole range (cursor back to the start) changes nothing.
    await f.t.app.fork().execute(`delete from chain_cursors; delete from chain_blocks`);
    await follow(async () => false);
    expect((await status(b.session)).status).toBe('processing');
    expect(await webhooksOf(f, a.session)).toHaveLength(1);
    expect(await webhooksOf(f, b.session)).toEqual([]);
    const [row] = await f.t.app
      .fork()
      .execute<{ n: string }[]>('select count(*) as n from payments where tx_hash = ?', [tx]);
    expect(Number(row?.n)).toBe(1);

    // B ends as an unpaid session ends: failed once its deadline passed, no payment found for it.
    const { timestamp } = (await f.provider.getBlock('latest'))!;
    const deadline = (await sessionRow(f, b.session)).deadline!;
    await f.provider.send('evm_increaseTime', [deadline - timestamp + 1]);
    // The block past the deadline, then enough blocks on it to make it final (the evidence of no payment).
    await mine(f, 1 + f.t.app.services.sessionChains.network('eth').finalityDepth);
    await follow(async () => (await status(b.session)).status === 'failed', {
      now: () => new Date(Date.now() + 61 * MINUTE),
    });
    expect(await status(b.session)).toMatchObject({ status: 'failed', step: 'failed' });
    expect((await sessionRow(f, b.session)).failureReason).toBe('no_payment');
    expect((await status(a.session)).status).toBe('completed');
  });

  it('a transaction the ledger gave to one session is refused to another (400 validation)', async () => {
    const a = await readyToPay('1');
    const b = await readyToPay('1');
    const tx = await pay(a.call); // pays A by its order_ref
    await follow(async () => (await sessionRow(f, a.session)).payment !== null);
    const refused = await step(b.session, 'signature_submitted', tx);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation' });
    expect(refused.body.error.message).toMatch(/already paid another session/);
    expect((await status(b.session)).step).toBe('awaiting_payment');
  });

  it('sessions reporting one transaction concurrently: exactly one is ever paid', async () => {
    const sessions = await Promise.all(Array.from({ length: 6 }, () => readyToPay('1')));
    const tx = await pay(foreignRef(sessions[0]!.call));
    const reports = await Promise.all(sessions.map((s) => step(s.session, 'signature_submitted', tx)));
    expect(reports.map((r) => r.status)).toEqual(sessions.map(() => 200));
    // Two followers racing over the same blocks, as two leaders in a split brain would: where both
    // read the same cursor, the one that commits second is refused (its cursor moved) and rolls back.
    for (let i = 0; i < 6; i++) {
      const passes = await Promise.allSettled([followerOf(f).pass(), followerOf(f).pass()]);
      for (const p of passes) if (p.status === 'rejected') expect(String(p.reason)).toMatch(/cursor moved/);
      await mine(f, 1);
    }
    await followerOf(f).pass();
    const statuses = await Promise.all(sessions.map(async (s) => (await status(s.session)).status));
    expect(statuses.filter((s) => s === 'completed')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'processing')).toHaveLength(5);
    const hooks = await Promise.all(sessions.map((s) => webhooksOf(f, s.session)));
    expect(hooks.flat()).toHaveLength(1);
  });

  it('the database itself refuses a second claim on one ledger row', async () => {
    const a = await readyToPay('1');
    const b = await readyToPay('1');
    await pay(a.call);
    await follow(async () => (await sessionRow(f, a.session)).payment !== null);
    const paymentId = (await sessionRow(f, a.session)).payment!.id;
    await expect(
      f.t.app.fork().execute('update sessions set payment_id = ? where id = ?', [paymentId, b.session]),
    ).rejects.toThrow(/unique|duplicate/i);
  });
});

describe('payees are pinned', () => {
  it('a transaction that paid another merchant’s wallet is refused', async () => {
    // Another merchant on the same network, paid by its own session.
    const other = await f.t.merchant('Other merchant');
    const otherWallet = Wallet.createRandom().address;
    await f.t.app.services.merchants.setSettlementWallet(f.t.app.fork(), other.id, 'eth', otherWallet);
    const otherInit = await f.t.signed(other, 'POST', '/v1/cashier/init', {
      network: 'eth',
      token: 'USDC',
      amount: '1',
    });
    const otherSession = ((await otherInit.json()) as StepBody).session;
    const connected = (await (
      await f.t.signed(other, 'POST', '/v1/cashier/step', {
        session: otherSession,
        action: 'wallet_connected',
        value: payer.address,
      })
    ).json()) as StepBody;
    const paidOther = await pay(foreignRef(connected.wallet_action!.params[0]!));
    await follow(async () => {
      const [row] = await f.t.app
        .fork()
        .execute<{ n: string }[]>('select count(*) as n from payments where tx_hash = ?', [paidOther]);
      return Number(row?.n) > 0;
    });

    const mine1 = await readyToPay('1');
    const refused = await step(mine1.session, 'signature_submitted', paidOther);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation' });
    expect(refused.body.error.message).toMatch(/another wallet/);
  });

  it('a settlement wallet changed while a session is open: the payment to the pinned wallet completes it', async () => {
    const { session, call } = await readyToPay('2');
    const pinned = (await sessionRow(f, session)).payee;
    expect(pinned).toBe(f.settlement);
    const replacement = Wallet.createRandom().address;
    await f.t.app.services.merchants.setSettlementWallet(f.t.app.fork(), f.merchant.id, 'eth', replacement);
    try {
      // The session still asks the player to pay the wallet it was opened with.
      const again = await status(session);
      const args = PAYMENT_ROUTER.decodeFunctionData('pay', again.wallet_action!.params[0]!.data);
      expect(String(args[2]).toLowerCase()).toBe(f.settlement);
      await pay(call);
      await follow(async () => (await status(session)).status === 'completed');
      expect((await status(session)).status).toBe('completed');
      // A session opened now is pinned to the new wallet.
      const fresh = await readyToPay('1');
      expect((await sessionRow(f, fresh.session)).payee).toBe(replacement.toLowerCase());
    } finally {
      await f.t.app.services.merchants.setSettlementWallet(
        f.t.app.fork(),
        f.merchant.id,
        'eth',
        f.settlement,
      );
    }
  });
});
