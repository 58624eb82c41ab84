import { hexlify, Interface, MaxUint256, randomBytes, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { TRANSITIONS } from '../../src/modules/session/session.machine.ts';
import {
  ethWallet,
  followerOf,
  mine,
  type SessionFixture,
  type StepBody,
  sendWalletAction,
  sessionFixture,
  sessionRow,
  webhooksOf,
} from './support.ts';

/** The step machine's rules (section 3.2) one by one, against the real chain. */

let f: SessionFixture;
beforeAll(async () => {
  f = await sessionFixture({ players: 3 });
});
afterAll(() => f?.close());

const CALLBACK = 'http://127.0.0.1:9/webhook';

async function send(session: string, action: string, value?: string) {
  return f.call('/v1/cashier/step', { session, action, ...(value === undefined ? {} : { value }) });
}

async function step(session: string, action: string, value?: string): Promise<StepBody> {
  const res = await send(session, action, value);
  if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function init(body: Record<string, unknown>): Promise<StepBody> {
  const res = await f.call('/v1/cashier/init', body);
  expect(res.status).toBe(200);
  return res.body;
}

/** A wallet with 100 ETH and `amount` of USDC (and nothing else). */
async function walletWith(amount: string): Promise<Wallet> {
  const w = await ethWallet(f.provider);
  const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, f.deployer);
  await (await usdc.getFunction('mint')(w.address, BigInt(Math.round(Number(amount) * 1e6)))).wait();
  return w;
}

async function expectError(res: { status: number; body: StepBody }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
}

describe('change_wallet (rule 1)', () => {
  it('from token_select returns to connect_wallet and asks for the coin again', async () => {
    const s = await init({ network: 'eth' });
    await step(s.session, 'wallet_connected', f.players[0]!.address);
    const back = await step(s.session, 'change_wallet');
    expect(back).toMatchObject({ step: 'connect_wallet', status: 'pending' });
    expect((await sessionRow(f, s.session)).wallet).toBeNull();
    const again = await step(s.session, 'wallet_connected', f.players[1]!.address);
    expect(again.step).toBe('token_select');
  });

  it('from enter_amount: a chosen coin is re-chosen with the new wallet', async () => {
    const s = await init({ network: 'eth' });
    await step(s.session, 'wallet_connected', f.players[0]!.address);
    expect((await step(s.session, 'select_token', 'USDC')).step).toBe('enter_amount');
    await step(s.session, 'change_wallet');
    expect((await sessionRow(f, s.session)).token).toBeNull();
    expect((await step(s.session, 'wallet_connected', f.players[1]!.address)).step).toBe('token_select');
  });

  it('from enter_amount: a prefilled coin is kept', async () => {
    const s = await init({ network: 'eth', token: 'DAI' });
    expect((await step(s.session, 'wallet_connected', f.players[0]!.address)).step).toBe('enter_amount');
    await step(s.session, 'change_wallet');
    expect((await step(s.session, 'wallet_connected', f.players[1]!.address)).step).toBe('enter_amount');
  });

  it('from awaiting_approval: back to connect_wallet; the new wallet’s allowance decides the next step', async () => {
    const s = await init({ network: 'eth', token: 'USDC', amount: '2' });
    const approval = await step(s.session, 'wallet_connected', f.players[0]!.address);
    expect(approval.step).toBe('awaiting_approval');
    expect(approval.wallet_action?.params[0]?.from).toBe(f.players[0]!.address.toLowerCase());
    expect((await step(s.session, 'change_wallet')).step).toBe('connect_wallet');
    const other = await walletWith('5');
    const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, other);
    await (await usdc.getFunction('approve')(f.contracts.paymentRouter, MaxUint256)).wait();
    const next = await step(s.session, 'wallet_connected', other.address);
    expect(next.step).toBe('awaiting_payment');
    expect(next.wallet_action?.params[0]?.from).toBe(other.address.toLowerCase());
  });

  it('is refused from awaiting_payment, processing, terminal steps and before a wallet is connected', async () => {
    const fresh = await init({});
    await expectError(await send(fresh.session, 'change_wallet'), 400, 'invalid_action');
    const connect = await init({ network: 'eth' });
    await expectError(await send(connect.session, 'change_wallet'), 400, 'invalid_action');

    const player = await walletWith('10');
    const s = await init({ network: 'eth', token: 'USDC', amount: '1' });
    const approval = await step(s.session, 'wallet_connected', player.address);
    const approveTx = await sendWalletAction(player, approval.wallet_action);
    const payment = await step(s.session, 'approval_submitted', approveTx);
    expect(payment.step).toBe('awaiting_payment');
    await expectError(await send(s.session, 'change_wallet'), 400, 'invalid_action');
    await step(s.session, 'signature_submitted', await sendWalletAction(player, payment.wallet_action));
    await expectError(await send(s.session, 'change_wallet'), 400, 'invalid_action');
  });
});

describe('the transition table (rule 5)', () => {
  it('refuses every action that does not belong to the step with invalid_action', async () => {
    const s = await init({});
    const actions = [
      'wallet_connected',
      'select_token',
      'submit_amount',
      'approval_submitted',
      'signature_submitted',
      'poll',
      'change_wallet',
      'dance',
    ];
    for (const action of actions) {
      await expectError(await send(s.session, action, '1'), 400, 'invalid_action');
    }
    // And the table names nothing for terminal steps.
    expect(TRANSITIONS.completed).toEqual([]);
    expect(TRANSITIONS.failed).toEqual([]);
    expect(TRANSITIONS.reverted).toEqual([]);
  });

  it('malformed values are validation errors; an unoffered option too (D11)', async () => {
    const s = await init({});
    await expectError(await send(s.session, 'select_network', 'tron'), 400, 'validation');
    await expectError(await send(s.session, 'select_network', 'nope'), 400, 'validation');
    await expectError(await send(s.session, 'select_network'), 400, 'validation');
    expect((await step(s.session, 'select_network', 'eth')).step).toBe('connect_wallet');
    await expectError(await send(s.session, 'wallet_connected', '0x1234'), 400, 'validation');
    await expectError(await send(s.session, 'wallet_connected'), 400, 'validation');
    await step(s.session, 'wallet_connected', f.players[0]!.address);
    await expectError(await send(s.session, 'change_wallet', 'x'), 400, 'validation');
    await step(s.session, 'select_token', 'USDC');
    for (const bad of ['-1', '0', '1e3', 'abc', '1.0000001', '']) {
      await expectError(await send(s.session, 'submit_amount', bad), 400, 'validation');
    }
    expect((await step(s.session, 'submit_amount', '1.000001')).step).toBe('awaiting_approval');
    await expectError(await send(s.session, 'approval_submitted', '0xnothash'), 400, 'validation');
  });

  it('a missing or foreign session is 404; a missing action is validation', async () => {
    const s = await init({});
    await expectError(await send('cs_nope', 'select_network', 'eth'), 404, 'not_found');
    const other = await f.t.merchant('Other');
    const res = await f.t.signed(other, 'POST', '/v1/cashier/step', {
      session: s.session,
      action: 'select_network',
      value: 'eth',
    });
    expect(res.status).toBe(404);
    await expectError(await f.call('/v1/cashier/step', { session: s.session }), 400, 'validation');
  });
});

describe('amount precision (D3)', () => {
  it('a prefilled amount finer than a coin’s decimals disables that coin, with a reason', async () => {
    const s = await init({ network: 'eth', amount: '1.0000001' });
    const picker = await step(s.session, 'wallet_connected', f.players[0]!.address);
    const options = picker.components.find((c) => c.type === 'button_group')!.options!;
    expect(options.filter((o) => o.disabled).map((o) => o.value)).toEqual(['USDT', 'USDC']);
    expect(options[0]?.reason).toMatch(/decimals/);
    await expectError(await send(s.session, 'select_token', 'USDC'), 400, 'validation');
    expect((await step(s.session, 'select_token', 'DAI')).step).toBe('awaiting_approval');
  });
});

describe('insufficient funds (D4)', () => {
  it('submit_amount above the balance is 400 with required/available/token/owner', async () => {
    const player = await walletWith('7.25');
    const s = await init({ network: 'eth', token: 'USDC' });
    await step(s.session, 'wallet_connected', player.address);
    const res = await send(s.session, 'submit_amount', '8');
    await expectError(res, 400, 'insufficient_funds');
    expect(res.body.error.details).toEqual({
      required: '8',
      available: '7.25',
      token: 'USDC',
      owner: player.address.toLowerCase(),
    });
    expect((await f.call('/v1/cashier/status', { session: s.session })).body.step).toBe('enter_amount');
  });

  it('a prefilled amount the wallet cannot cover is refused at wallet_connected', async () => {
    const player = await walletWith('1');
    const s = await init({ network: 'eth', token: 'USDC', amount: '1.5' });
    const res = await send(s.session, 'wallet_connected', player.address);
    await expectError(res, 400, 'insufficient_funds');
    expect(res.body.error.details).toMatchObject({ required: '1.5', available: '1', token: 'USDC' });
    expect((await f.call('/v1/cashier/status', { session: s.session })).body.step).toBe('connect_wallet');
  });
});

describe('approval_submitted (rule 3, D11)', () => {
  it('a mined and reverted transaction is 400 tx_reverted', async () => {
    const player = await walletWith('5');
    const s = await init({ network: 'eth', token: 'USDC', amount: '1' });
    await step(s.session, 'wallet_connected', player.address);
    // approve(...) sent to the router, which has no such function: mined, reverted.
    const data = new Interface(['function approve(address,uint256)']).encodeFunctionData('approve', [
      player.address,
      1n,
    ]);
    const tx = await player.sendTransaction({ to: f.contracts.paymentRouter, data, gasLimit: 100_000n });
    expect((await tx.wait().catch(() => null))?.status ?? 0).toBe(0);
    await expectError(await send(s.session, 'approval_submitted', tx.hash), 400, 'tx_reverted');
    expect((await f.call('/v1/cashier/status', { session: s.session })).body.step).toBe('awaiting_approval');
  });

  it('not mined yet is 503 unavailable; once mined it moves on', async () => {
    const player = await walletWith('5');
    const s = await init({ network: 'eth', token: 'USDC', amount: '1' });
    const approval = await step(s.session, 'wallet_connected', player.address);
    await f.provider.send('evm_setAutomine', [false]);
    let hash: string;
    try {
      const action = approval.wallet_action!.params[0]!;
      const sent = await player.sendTransaction({ to: action.to, data: action.data, gasLimit: 100_000n });
      hash = sent.hash;
      await expectError(await send(s.session, 'approval_submitted', hash), 503, 'unavailable');
    } finally {
      await f.provider.send('evm_setAutomine', [true]);
    }
    await mine(f, 1);
    expect((await step(s.session, 'approval_submitted', hash)).step).toBe('awaiting_payment');
  });

  it('an approval for less than the amount is 400 insufficient_allowance with the spender', async () => {
    const player = await walletWith('5');
    const s = await init({ network: 'eth', token: 'USDC', amount: '2' });
    await step(s.session, 'wallet_connected', player.address);
    const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, player);
    const tx = await usdc.getFunction('approve')(f.contracts.paymentRouter, 1_000_000n);
    await tx.wait();
    const res = await send(s.session, 'approval_submitted', tx.hash);
    await expectError(res, 400, 'insufficient_allowance');
    expect(res.body.error.details).toMatchObject({
      required: '2',
      available: '1',
      spender: f.contracts.paymentRouter,
    });
  });
});

describe('a reverted payment', () => {
  it('ends as step reverted, order failed, with payment.failed carrying the tx hash', async () => {
    const player = await walletWith('5');
    const s = await init({ network: 'eth', token: 'USDC', amount: '1', callback_url: CALLBACK });
    const approval = await step(s.session, 'wallet_connected', player.address);
    const payment = await step(
      s.session,
      'approval_submitted',
      await sendWalletAction(player, approval.wallet_action),
    );
    // The session's deadline passes on chain: the router refuses the payment, tokens stay.
    const row = await sessionRow(f, s.session);
    const { timestamp } = (await f.provider.getBlock('latest'))!;
    await f.provider.send('evm_increaseTime', [row.deadline! - timestamp + 10]);
    await mine(f, 1);
    const action = payment.wallet_action!.params[0]!;
    const tx = await player.sendTransaction({ to: action.to, data: action.data, gasLimit: 200_000n });
    expect((await tx.wait().catch(() => null))?.status ?? 0).toBe(0);
    expect((await step(s.session, 'signature_submitted', tx.hash)).step).toBe('processing');

    const listener = followerOf(f);
    // Past the tier's depth (3) but not final: a reorganisation could still mine it again, paying.
    await mine(f, 3);
    await listener.pass();
    expect((await f.call('/v1/cashier/status', { session: s.session })).body.step).toBe('processing');
    await mine(f, f.t.app.services.sessionChains.network('eth').finalityDepth);
    let body: StepBody | undefined;
    for (let i = 0; i < 5 && body?.step !== 'reverted'; i++) {
      await listener.pass();
      body = (await f.call('/v1/cashier/status', { session: s.session })).body;
    }
    expect(body).toMatchObject({ step: 'reverted', status: 'failed' });
    expect(body?.components[0]).toMatchObject({ type: 'status', status: 'error' });
    const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, f.provider);
    expect(await usdc.getFunction('balanceOf')(player.address)).toBe(5_000_000n);
    const hooks = await webhooksOf(f, s.session);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toMatchObject({
      event: 'payment.failed',
      status: 'failed',
      tx_hash: tx.hash.toLowerCase(),
    });
    await expectError(await send(s.session, 'poll'), 400, 'invalid_action');
  });
});

describe('signature_submitted at awaiting_payment', () => {
  it('refuses a hash the node does not know with 503 unavailable and stays at awaiting_payment', async () => {
    const player = await walletWith('5');
    const s = await init({ network: 'eth', token: 'USDC', amount: '1' });
    const approval = await step(s.session, 'wallet_connected', player.address);
    await step(s.session, 'approval_submitted', await sendWalletAction(player, approval.wallet_action));
    const unknown = hexlify(randomBytes(32));
    const refused = await send(s.session, 'signature_submitted', unknown);
    await expectError(refused, 503, 'unavailable');
    expect(refused.body.error.message).toContain('not known to the network');
    expect((await f.call('/v1/cashier/status', { session: s.session })).body.step).toBe('awaiting_payment');
  });
});

describe('signature_submitted at processing', () => {
  it('is an idempotent repeat with the same hash and invalid_action with another', async () => {
    const player = await walletWith('5');
    const s = await init({ network: 'eth', token: 'USDC', amount: '1' });
    const approval = await step(s.session, 'wallet_connected', player.address);
    const payment = await step(
      s.session,
      'approval_submitted',
      await sendWalletAction(player, approval.wallet_action),
    );
    const hash = await sendWalletAction(player, payment.wallet_action);
    expect((await step(s.session, 'signature_submitted', hash)).step).toBe('processing');
    expect((await step(s.session, 'signature_submitted', hash)).step).toBe('processing');
    await expectError(
      await send(s.session, 'signature_submitted', hexlify(randomBytes(32))),
      400,
      'invalid_action',
    );
    expect((await step(s.session, 'poll')).status).toBe('processing');
  });
});
