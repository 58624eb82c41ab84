import { keccak256, MaxUint256, toUtf8Bytes, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import {
  followerOf,
  mine,
  type SessionFixture,
  type StepBody,
  sendWalletAction,
  sessionFixture,
  sessionRow,
  step as stepOf,
  webhooksOf,
} from './support.ts';

/** Whole flows through REST with real signed transactions, settled by the real listener. */

let f: SessionFixture;
beforeAll(async () => {
  f = await sessionFixture({ players: 6 });
});
afterAll(() => f?.close());

const CALLBACK = 'http://127.0.0.1:9/webhook';

const step = (session: string, action: string, value?: string) => stepOf(f, session, action, value);

/** From any pre-payment step to `processing`, doing what the response asks; returns the payment tx. */
async function payThrough(
  body: StepBody,
  player: Wallet,
  choices: { network?: string; token?: string; amount?: string },
) {
  const seen: string[] = [];
  let current = body;
  let paymentTx = '';
  while (current.step !== 'processing') {
    seen.push(current.step);
    // A status poll renders each step exactly as the action that led to it did.
    expect((await f.call('/v1/cashier/status', { session: current.session })).body).toEqual(current);
    switch (current.step) {
      case 'network_select':
        current = await step(current.session, 'select_network', choices.network);
        break;
      case 'connect_wallet':
        current = await step(current.session, 'wallet_connected', player.address);
        break;
      case 'token_select':
        current = await step(current.session, 'select_token', choices.token);
        break;
      case 'enter_amount':
        current = await step(current.session, 'submit_amount', choices.amount);
        break;
      case 'awaiting_approval': {
        expect(current.submit_action).toBe('approval_submitted');
        const tx = await sendWalletAction(player, current.wallet_action);
        current = await step(current.session, 'approval_submitted', tx);
        break;
      }
      case 'awaiting_payment': {
        expect(current.submit_action).toBe('signature_submitted');
        paymentTx = await sendWalletAction(player, current.wallet_action);
        current = await step(current.session, 'signature_submitted', paymentTx);
        break;
      }
      default:
        throw new Error(`unexpected step ${current.step}`);
    }
  }
  expect(current.status).toBe('processing');
  expect((await f.call('/v1/cashier/status', { session: current.session })).body).toEqual(current);
  return { seen, paymentTx };
}

/** Runs listener passes, mining a block between them, until the session settles. */
async function settle(session: string, maxBlocks = 40): Promise<StepBody> {
  const listener = followerOf(f);
  for (let i = 0; i < maxBlocks; i++) {
    await listener.pass();
    const status = await f.call('/v1/cashier/status', { session });
    if (['completed', 'failed'].includes(status.body.status)) return status.body;
    await mine(f, 1);
  }
  throw new Error('session did not settle');
}

describe('whole flow to completed', () => {
  it.each([
    {
      name: 'no prefill',
      prefill: {},
      steps: [
        'network_select',
        'connect_wallet',
        'token_select',
        'enter_amount',
        'awaiting_approval',
        'awaiting_payment',
      ],
    },
    {
      name: 'network',
      prefill: { network: 'eth' },
      steps: ['connect_wallet', 'token_select', 'enter_amount', 'awaiting_approval', 'awaiting_payment'],
    },
    {
      name: 'network+token',
      prefill: { network: 'eth', token: 'USDC' },
      steps: ['connect_wallet', 'enter_amount', 'awaiting_approval', 'awaiting_payment'],
    },
    {
      name: 'network+token+amount',
      prefill: { network: 'eth', token: 'USDC', amount: '12.5' },
      steps: ['connect_wallet', 'awaiting_approval', 'awaiting_payment'],
    },
  ])('$name', async ({ prefill, steps }) => {
    const player = f.players[Object.keys(prefill).length]!;
    const init = await f.call('/v1/cashier/init', {
      ...prefill,
      external_order_id: `flow-${Object.keys(prefill).length}`,
      player_id: 'player-7',
      callback_url: CALLBACK,
    });
    expect(init.status).toBe(200);
    const { seen, paymentTx } = await payThrough(init.body, player, {
      network: 'eth',
      token: 'USDC',
      amount: '12.5',
    });
    expect(seen).toEqual(steps);

    const done = await settle(init.body.session);
    expect(done).toMatchObject({ step: 'completed', status: 'completed' });
    expect(done.components[0]).toMatchObject({ type: 'status', status: 'success' });

    const row = await sessionRow(f, init.body.session);
    expect(row.txHash).toBe(paymentTx.toLowerCase());
    const usdc = contractAt('TestToken', f.contracts.tokens.USDC!.address, f.provider);
    expect(await usdc.getFunction('balanceOf')(f.settlement)).toBeGreaterThanOrEqual(12_500_000n);

    const hooks = await webhooksOf(f, init.body.session);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]).toEqual({
      event: 'payment.completed',
      session_id: init.body.session,
      merchant_id: f.merchant.id,
      player_id: 'player-7',
      external_order_id: `flow-${Object.keys(prefill).length}`,
      network: 'eth',
      token: 'USDC',
      amount: '12.5',
      status: 'completed',
      tx_hash: paymentTx.toLowerCase(),
      order_ref: keccak256(toUtf8Bytes(init.body.session)),
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    // Terminal: every action is invalid_action, status stays readable.
    const after = await f.call('/v1/cashier/step', { session: init.body.session, action: 'poll' });
    expect(after.status).toBe(400);
    expect(after.body.error.code).toBe('invalid_action');
  });
});

describe('token_select', () => {
  it('shows the wallet’s balance per coin and renders unusable coins disabled with a reason', async () => {
    const player = f.players[4]!;
    // Spend all DAI so that coin is disabled for this wallet.
    const dai = contractAt('TestToken', f.contracts.tokens.DAI!.address, player);
    const all = await dai.getFunction('balanceOf')(player.address);
    await (await dai.getFunction('transfer')(f.settlement, all)).wait();
    const init = await f.call('/v1/cashier/init', { network: 'eth', language: 'es' });
    const res = await step(init.body.session, 'wallet_connected', player.address);
    expect(res.step).toBe('token_select');
    const options = res.components.find((c) => c.type === 'button_group')!.options!;
    expect(options.map((o) => o.value)).toEqual(['USDT', 'USDC', 'DAI']);
    expect(options[1]).toMatchObject({ label: 'USDC', action: 'select_token', note: 'Saldo: 1000' });
    expect(options[2]).toMatchObject({
      value: 'DAI',
      disabled: true,
      reason: 'Saldo insuficiente',
      note: 'Saldo: 0',
    });

    // A disabled coin cannot be chosen; a coin that is not offered is a validation error (D11).
    const disabled = await f.call('/v1/cashier/step', {
      session: init.body.session,
      action: 'select_token',
      value: 'DAI',
    });
    expect(disabled.status).toBe(400);
    expect(disabled.body.error).toMatchObject({
      code: 'insufficient_funds',
      details: { available: '0', token: 'DAI', owner: player.address.toLowerCase() },
    });
    const unknown = await f.call('/v1/cashier/step', {
      session: init.body.session,
      action: 'select_token',
      value: 'WBTC',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('validation');
  });
});

describe('approval', () => {
  it('is skipped when the existing allowance suffices', async () => {
    const player = f.players[5]!;
    const usdt = contractAt('TetherToken', f.contracts.tokens.USDT!.address, player);
    await (await usdt.getFunction('approve')(f.contracts.paymentRouter, MaxUint256)).wait();
    const init = await f.call('/v1/cashier/init', {
      network: 'eth',
      token: 'USDT',
      amount: '3',
      callback_url: CALLBACK,
    });
    const { seen } = await payThrough(init.body, player, {});
    expect(seen).toEqual(['connect_wallet', 'awaiting_payment']);
    expect((await settle(init.body.session)).status).toBe('completed');
  });
});
