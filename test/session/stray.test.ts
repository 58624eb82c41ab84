import { keccak256, MaxUint256, toUtf8Bytes, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { PAYMENT_ROUTER } from '../../src/modules/session/session.chain.ts';
import {
  ethWallet,
  followerOf,
  mine,
  type SessionFixture,
  type StepBody,
  sessionFixture,
  sessionRow,
  step as stepOf,
  webhooksOf,
} from './support.ts';

/**
 * Stray payments (issue #27 §2): a payment whose `order_ref` names no session is claimed by a
 * reported hash only when it cannot be someone else's; operators list the rest, attach one to a
 * session or mark it refunded, and the database decides every claim.
 */

let f: SessionFixture;
let operator: { id: string; token: string };
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  operator = await f.t.app.services.operators.createToken(f.t.app.fork(), {
    name: 'stray-test',
    scopes: ['admin'],
  });
});
afterAll(() => f?.close());

const CALLBACK = 'http://127.0.0.1:9/webhook';

/** A wallet holding `amount` USDC with the router approved for everything. */
async function fundedPayer(amount = '1000'): Promise<Wallet> {
  const w = await ethWallet(f.provider);
  const t = f.contracts.tokens.USDC!;
  await (
    await contractAt('TestToken', t.address, f.deployer).getFunction('mint')(
      w.address,
      BigInt(amount) * 10n ** 6n,
    )
  ).wait();
  await (
    await contractAt('TestToken', t.address, w).getFunction('approve')(f.contracts.paymentRouter, MaxUint256)
  ).wait();
  return w;
}

const step = (session: string, action: string, value?: string) => stepOf(f, session, action, value);

/** A session of `amount` USDC at awaiting_payment for `wallet`: its id and the router call to send. */
async function readyToPay(wallet: Wallet, amount = '5', extra: Record<string, unknown> = {}) {
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount,
    callback_url: CALLBACK,
    ...extra,
  });
  const body = await step(init.body.session, 'wallet_connected', wallet.address);
  expect(body.step).toBe('awaiting_payment');
  return { session: init.body.session, call: body.wallet_action!.params[0]! };
}

/** Sends the router call with `orderRef` (and optionally amount/merchant) replaced; the mined tx hash. */
async function payStray(
  wallet: Wallet,
  call: { to: string; data: string },
  change: { orderRef?: string; amount?: bigint; merchant?: string } = {},
): Promise<string> {
  const args = PAYMENT_ROUTER.decodeFunctionData('pay', call.data);
  const data = PAYMENT_ROUTER.encodeFunctionData('pay', [
    args[0],
    change.amount ?? args[1],
    change.merchant ?? args[2],
    change.orderRef ?? keccak256(toUtf8Bytes(`no session ${Math.random()}`)),
    args[4],
  ]);
  const nonce = Number(BigInt(await f.provider.send('eth_getTransactionCount', [wallet.address, 'pending'])));
  const tx = await wallet.sendTransaction({ to: call.to, data, nonce, gasLimit: 200_000n });
  expect((await tx.wait())?.status).toBe(1);
  return tx.hash.toLowerCase();
}

/** The page's unsigned hosted call. */
async function hosted(path: string, body: unknown) {
  const res = await fetch(`${f.t.http.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as StepBody };
}

/** Follower passes until every block so far is processed and `depth` more are mined. */
async function settle(depth = 3) {
  await mine(f, depth);
  await followerOf(f).pass();
}

async function ledgerId(txHash: string): Promise<string> {
  const [row] = await f.t.app
    .fork()
    .execute<{ id: string }[]>('select id::text as id from payments where tx_hash = ?', [txHash]);
  if (!row) throw new Error(`no ledger row for ${txHash}`);
  return row.id;
}

const gql = (query: string, variables?: Record<string, unknown>) =>
  f.t.graphql(operator.token, query, variables);

const FIELDS =
  'id network txHash payer recipient merchantId tokenSymbol amount amountRaw state attachedSessionId resolvedBy resolvedAt note';
const LIST = `query ($filter: UnmatchedPaymentFilter, $first: Int, $after: String) {
  unmatchedPayments(filter: $filter, first: $first, after: $after) { nodes { ${FIELDS} } hasNextPage endCursor } }`;
const ATTACH = `mutation ($p: ID!, $s: ID!, $note: String) { attachPayment(paymentId: $p, sessionId: $s, note: $note) { ${FIELDS} } }`;
const REFUND = `mutation ($p: ID!, $note: String) { markPaymentRefunded(paymentId: $p, note: $note) { ${FIELDS} } }`;

async function listed(filter: Record<string, unknown> = {}): Promise<{ txHash: string; state: string }[]> {
  const res = await gql(LIST, { filter, first: 500 });
  expect(res.errors).toBeUndefined();
  return res.data.unmatchedPayments.nodes;
}

describe('the reported-hash fallback', () => {
  it('a hosted link naming another player’s wallet and stray hash does not get the payment (issue #27)', async () => {
    const victim = await fundedPayer();
    const { call } = await readyToPay(victim, '7');
    const tx = await payStray(victim, call);
    await settle();

    const link = await f.call('/v1/hpp/sessions', {
      network: 'eth',
      token: 'USDC',
      amount: '7',
      player_id: 'attacker',
    });
    const { session, token } = link.body as unknown as { session: string; token: string };
    const connected = await hosted('/v1/hpp/step', {
      token,
      action: 'wallet_connected',
      value: victim.address,
    });
    expect(connected.body.step).toBe('awaiting_payment');
    const reported = await hosted('/v1/hpp/step', { token, action: 'signature_submitted', value: tx });
    expect(reported.status).toBe(400);
    expect(reported.body.error.message).toMatch(/mined before this session's wallet was connected/);
    await settle();
    await settle();

    expect((await sessionRow(f, session)).payment).toBeNull();
    expect((await sessionRow(f, session)).status).not.toBe('completed');
    expect(await webhooksOf(f, session)).toEqual([]);
    expect((await listed({ wallet: victim.address })).map((p) => p.txHash)).toEqual([tx]);
  });

  it('still pays the session that connected the wallet before the payment and reports it late', async () => {
    const player = await fundedPayer();
    const { session, call } = await readyToPay(player, '4');
    const tx = await payStray(player, call);
    await settle();
    expect((await sessionRow(f, session)).payment).toBeNull();
    await step(session, 'signature_submitted', tx);
    await settle();
    const row = await sessionRow(f, session);
    expect([row.status, row.txHash]).toEqual(['completed', tx]);
    expect(await webhooksOf(f, session)).toMatchObject([{ event: 'payment.completed', tx_hash: tx }]);
  });

  it('claims by hash only the exact amount: an overpayment is left to operators', async () => {
    const player = await fundedPayer();
    const over = await readyToPay(player, '2');
    const overTx = await payStray(player, over.call, { amount: 3_000_000n });
    await step(over.session, 'signature_submitted', overTx);
    await settle();
    await settle();
    expect((await sessionRow(f, over.session)).payment).toBeNull();
    expect((await listed({ wallet: player.address })).map((p) => p.txHash)).toContain(overTx);
  });

  it('does not claim a payment mined before the session connected its wallet, even from that wallet', async () => {
    const player = await fundedPayer();
    const first = await readyToPay(player, '3');
    const tx = await payStray(player, first.call);
    await settle();
    const { session } = await readyToPay(player, '3');
    const res = await f.call('/v1/cashier/step', { session, action: 'signature_submitted', value: tx });
    expect([res.status, res.body.error?.code]).toEqual([400, 'validation']);
    await settle();
    await settle();
    expect((await sessionRow(f, session)).payment).toBeNull();
  });
});

describe('operators: unmatchedPayments', () => {
  it('lists stray payments with filters (network, merchant, wallet, age) and pages through them', async () => {
    const other = await f.t.merchant('Other merchant');
    const otherWallet = Wallet.createRandom().address;
    await f.t.app.services.merchants.setSettlementWallet(f.t.app.fork(), other.id, 'eth', otherWallet);
    const player = await fundedPayer();
    const { call } = await readyToPay(player, '1');
    const mine1 = await payStray(player, call);
    const mine2 = await payStray(player, call);
    const theirs = await payStray(player, call, { merchant: otherWallet });
    await settle();
    await f.t.app
      .fork()
      .execute(`update payments set created_at = now() - interval '2 hours' where tx_hash = ?`, [mine1]);

    const byWallet = await listed({ wallet: player.address.toUpperCase().replace('0X', '0x') });
    expect(byWallet.map((p) => p.txHash)).toEqual([theirs, mine2, mine1]);
    expect(byWallet[0]).toMatchObject({
      network: 'eth',
      tokenSymbol: 'USDC',
      amount: '1',
      amountRaw: '1000000',
      state: 'unmatched',
      merchantId: other.id,
    });
    expect(
      (await listed({ wallet: player.address, merchantId: f.merchant.id })).map((p) => p.txHash),
    ).toEqual([mine2, mine1]);
    expect((await listed({ wallet: player.address, merchantId: other.id })).map((p) => p.txHash)).toEqual([
      theirs,
    ]);
    expect((await listed({ wallet: player.address, minAgeMinutes: 60 })).map((p) => p.txHash)).toEqual([
      mine1,
    ]);
    expect((await listed({ wallet: player.address, maxAgeMinutes: 60 })).map((p) => p.txHash)).toEqual([
      theirs,
      mine2,
    ]);
    expect(await listed({ wallet: player.address, network: 'tron' })).toEqual([]);

    const seen: string[] = [];
    let after: string | null = null;
    do {
      const res = await gql(LIST, { filter: { wallet: player.address }, first: 2, after });
      expect(res.errors).toBeUndefined();
      seen.push(...res.data.unmatchedPayments.nodes.map((p: { txHash: string }) => p.txHash));
      after = res.data.unmatchedPayments.hasNextPage ? res.data.unmatchedPayments.endCursor : null;
    } while (after);
    expect(seen).toEqual([theirs, mine2, mine1]);
  });

  it('is for operators only, and a payment a session claimed never shows', async () => {
    const res = await f.t.graphql('nope', LIST);
    expect(res.errors?.[0]?.extensions?.code).toBe('unauthorized');
    const player = await fundedPayer();
    const { call } = await readyToPay(player, '1');
    await payStray(player, call, { orderRef: PAYMENT_ROUTER.decodeFunctionData('pay', call.data)[3] });
    await settle();
    expect(await listed({ wallet: player.address })).toEqual([]);
  });
});

describe('operators: attachPayment and markPaymentRefunded', () => {
  it('attaches a stray payment: the session completes once through the follower, with one webhook', async () => {
    const player = await fundedPayer();
    const { call } = await readyToPay(player, '6');
    const tx = await payStray(player, call);
    await settle();
    const target = await readyToPay(await fundedPayer(), '6', { player_id: 'p-6' });
    const id = await ledgerId(tx);

    const res = await gql(ATTACH, { p: id, s: target.session, note: 'ticket 42' });
    expect(res.errors).toBeUndefined();
    expect(res.data.attachPayment).toMatchObject({
      id,
      state: 'attached',
      attachedSessionId: target.session,
      resolvedBy: operator.id,
      note: 'ticket 42',
    });
    expect((await sessionRow(f, target.session)).status).toBe('processing');
    await settle(1);
    await settle(1);
    const row = await sessionRow(f, target.session);
    expect([row.status, row.txHash]).toEqual(['completed', tx]);
    expect(await webhooksOf(f, target.session)).toMatchObject([
      { event: 'payment.completed', player_id: 'p-6', amount: '6', tx_hash: tx, status: 'completed' },
    ]);
    expect((await listed({ wallet: player.address })).map((p) => p.txHash)).not.toContain(tx);
    expect((await listed({ wallet: player.address, state: 'attached' })).map((p) => p.txHash)).toEqual([tx]);

    // Never twice, never to a paid session.
    const again = await gql(ATTACH, { p: id, s: (await readyToPay(player, '6')).session });
    expect(again.errors?.[0]?.extensions?.code).toBe('conflict');
    const another = await payStray(player, call);
    await settle();
    const paid = await gql(ATTACH, { p: await ledgerId(another), s: target.session });
    expect(paid.errors?.[0]?.extensions?.code).toBe('conflict');
    expect(await webhooksOf(f, target.session)).toHaveLength(1);
  });

  it('two operators attaching one payment to two sessions at once: exactly one wins', async () => {
    const player = await fundedPayer();
    const { call } = await readyToPay(player, '8');
    const tx = await payStray(player, call);
    await settle();
    const a = await readyToPay(player, '8');
    const b = await readyToPay(player, '8');
    const id = await ledgerId(tx);
    const results = await Promise.all([
      gql(ATTACH, { p: id, s: a.session }),
      gql(ATTACH, { p: id, s: b.session }),
    ]);
    expect(results.filter((r) => !r.errors)).toHaveLength(1);
    expect(results.find((r) => r.errors)?.errors?.[0]?.extensions?.code).toBe('conflict');
    const holders = await f.t.app.fork().execute('select id from sessions where payment_id = ?', [id]);
    expect(holders).toHaveLength(1);
  });

  it('refuses a payment short of the session or to another wallet, not yet confirmed, or for a session already paid', async () => {
    const player = await fundedPayer();
    const { call } = await readyToPay(player, '9');
    const small = await payStray(player, call, { amount: 8_000_000n });
    const elsewhere = await payStray(player, call, { merchant: Wallet.createRandom().address });
    const paidOwn = await readyToPay(player, '9');
    await payStray(player, paidOwn.call, {
      orderRef: PAYMENT_ROUTER.decodeFunctionData('pay', paidOwn.call.data)[3],
    });
    await settle();
    const open = await readyToPay(player, '9');
    const short = await gql(ATTACH, { p: await ledgerId(small), s: open.session });
    expect(short.errors?.[0]?.extensions?.code).toBe('validation');
    expect(short.errors?.[0]?.message).toMatch(/less than the session amount/);
    const wrongWallet = await gql(ATTACH, { p: await ledgerId(elsewhere), s: open.session });
    expect(wrongWallet.errors?.[0]?.message).toMatch(/did not reach the session's merchant wallet/);
    const taken = await gql(ATTACH, { p: await ledgerId(small), s: paidOwn.session });
    expect(taken.errors?.[0]?.extensions?.code).toBe('conflict');
    const fresh = await payStray(player, open.call);
    await followerOf(f).pass();
    const early = await gql(ATTACH, { p: await ledgerId(fresh), s: open.session });
    expect(early.errors?.[0]?.extensions?.code).toBe('unavailable');
    expect(early.errors?.[0]?.message).toMatch(/1 of 3 confirmations/);
    const missing = await gql(ATTACH, { p: '999999999', s: open.session });
    expect(missing.errors?.[0]?.extensions?.code).toBe('not_found');
    expect((await listed({ wallet: player.address })).map((p) => p.txHash)).toEqual([
      fresh,
      elsewhere,
      small,
    ]);
  });

  it('marks a payment refunded once, with who did it; it then pays no session', async () => {
    const player = await fundedPayer();
    const { session, call } = await readyToPay(player, '5');
    const tx = await payStray(player, call);
    await settle();
    const id = await ledgerId(tx);
    // Its player reports it, but the operator refunds it before the follower gets to the report.
    await step(session, 'signature_submitted', tx);
    const res = await gql(REFUND, { p: id, note: 'refund 0xabc' });
    expect(res.errors).toBeUndefined();
    expect(res.data.markPaymentRefunded).toMatchObject({
      state: 'refunded',
      resolvedBy: operator.id,
      note: 'refund 0xabc',
    });
    expect(res.data.markPaymentRefunded.resolvedAt).toBeTruthy();
    expect((await gql(REFUND, { p: id })).errors?.[0]?.extensions?.code).toBe('conflict');
    // The database itself refuses a second decision, whatever code tries.
    await expect(
      f.t.app
        .fork()
        .execute(
          `insert into payment_resolutions (payment_id, action, operator_id, created_at) values (?, 'attached', 'x', now())`,
          [id],
        ),
    ).rejects.toThrow(/duplicate key|unique/i);
    expect((await gql(ATTACH, { p: id, s: session })).errors?.[0]?.extensions?.code).toBe('conflict');
    expect(await listed({ wallet: player.address })).toEqual([]);
    expect((await listed({ wallet: player.address, state: 'refunded' })).map((p) => p.txHash)).toEqual([tx]);

    // The operator's decision stands: the follower does not claim it, and a new report is refused.
    await settle();
    await settle();
    expect((await sessionRow(f, session)).payment).toBeNull();
    const other = await readyToPay(player, '5');
    const late = await f.call('/v1/cashier/step', {
      session: other.session,
      action: 'signature_submitted',
      value: tx,
    });
    expect(late.body.error?.message).toMatch(/already settled by an operator/);
  });

  it('mutations are for operators only', async () => {
    const res = await f.t.graphql('nope', REFUND, { p: '1' });
    expect(res.errors?.[0]?.extensions?.code).toBe('unauthorized');
  });
});
