import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Session } from '../../src/modules/session/session.entity.ts';
import { entitySnapshot } from '../../src/modules/session/session.service.ts';
import { transitionSessions } from '../../src/modules/session/session.transition.ts';
import {
  followerOf,
  mine,
  type SessionFixture,
  sendWalletAction,
  sessionFixture,
  step as stepOf,
} from './support.ts';

/**
 * A session's history: every change recorded with the change itself (the transition engine's one
 * transaction), with its time and what made it, readable by operators as `DepositSession.history`.
 */

let f: SessionFixture;
let token: string;
beforeAll(async () => {
  f = await sessionFixture({ players: 1 });
  token = await f.t.operatorToken();
});
afterAll(() => f?.close());

const HISTORY = `query ($id: ID!) { session(id: $id) { history {
  version kind cause actor fromStep toStep fromStatus toStatus failureReason txHash at } } }`;

interface Entry {
  version: number;
  kind: string;
  cause: string;
  actor: string | null;
  fromStep: string | null;
  toStep: string;
  fromStatus: string | null;
  toStatus: string;
  failureReason: string | null;
  txHash: string | null;
  at: string;
}

async function historyOf(id: string): Promise<Entry[]> {
  const res = await f.t.graphql(token, HISTORY, { id });
  expect(res.errors).toBeUndefined();
  return res.data.session.history;
}

const step = (session: string, action: string, value?: string) => stepOf(f, session, action, value);

it('a session driven through its steps and paid has its history in order, with times and causes', async () => {
  const player = f.players[0]!;
  const init = await f.call('/v1/cashier/init', { network: 'eth', token: 'USDC', amount: '7.5' });
  const id = init.body.session;
  let current = await step(id, 'wallet_connected', player.address);
  expect(current.step).toBe('awaiting_approval');
  const approval = await sendWalletAction(player, current.wallet_action);
  current = await step(id, 'approval_submitted', approval);
  const payment = await sendWalletAction(player, current.wallet_action);
  current = await step(id, 'signature_submitted', payment);
  expect(current.step).toBe('processing');
  const listener = followerOf(f);
  for (let i = 0; i < 40; i++) {
    await listener.pass();
    if ((await f.call('/v1/cashier/status', { session: id })).body.status === 'completed') break;
    await mine(f, 1);
  }

  const history = await historyOf(id);
  const key = f.merchant.keyId;
  expect(history.map((h) => [h.version, h.kind, h.cause, h.actor, h.fromStep, h.toStep, h.toStatus])).toEqual(
    [
      [0, 'created', 'merchant_api', key, null, 'connect_wallet', 'pending'],
      [1, 'step', 'merchant_api', key, 'connect_wallet', 'awaiting_approval', 'pending'],
      [2, 'step', 'merchant_api', key, 'awaiting_approval', 'awaiting_payment', 'pending'],
      [3, 'step', 'merchant_api', key, 'awaiting_payment', 'processing', 'processing'],
      [4, 'payment_found', 'chain', null, 'processing', 'processing', 'processing'],
      [5, 'completed', 'chain', null, 'processing', 'completed', 'completed'],
    ],
  );
  expect(history.map((h) => h.fromStatus)).toEqual([
    null,
    'pending',
    'pending',
    'pending',
    'processing',
    'processing',
  ]);
  expect(history[2]!.txHash).toBe(approval.toLowerCase());
  expect(history[3]!.txHash).toBe(payment.toLowerCase());
  expect(history[4]!.txHash).toBe(payment.toLowerCase());
  expect(history[5]!.txHash).toBe(payment.toLowerCase());
  // Times as the commits made them: never going back.
  const times = history.map((h) => Date.parse(h.at));
  expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]!))).toBe(true);
  // The last change is the session's own last change.
  const row = await f.t.app.fork().findOneOrFail(Session, { id });
  expect(row.version).toBe(5);
  expect(Date.parse(history[5]!.at)).toBe(row.updatedAt.getTime());
});

it('names an operator who stepped a session, and the expiry that failed one', async () => {
  const INIT = `mutation ($m: ID) { cashierInit(merchantId: $m, input: {}) { session } }`;
  const stepped = (await f.t.graphql(token, INIT, { m: f.merchant.id })).data.cashierInit.session;
  const res = await f.t.graphql(
    token,
    `mutation ($m: ID, $id: String!) { cashierStep(merchantId: $m, input: { session: $id, action: "select_network", value: "eth" }) { step } }`,
    { m: f.merchant.id, id: stepped },
  );
  expect(res.data.cashierStep.step).toBe('connect_wallet');
  const [operator] = await f.t.app
    .fork()
    .execute<{ id: string }[]>('select id from operator_tokens where token_hash = ?', [
      createHash('sha256').update(token).digest('hex'),
    ]);
  expect((await historyOf(stepped)).map((h) => [h.kind, h.cause, h.actor, h.toStep])).toEqual([
    ['created', 'operator', operator!.id, 'network_select'],
    ['step', 'operator', operator!.id, 'connect_wallet'],
  ]);

  // A session that never got a network, seen by the follower's watch a day later: expired.
  const idle = (await f.call('/v1/cashier/init', {})).body.session;
  const later = new Date(Date.now() + 24 * 3600_000);
  await followerOf(f, { now: () => later }).pass();
  expect(
    (await historyOf(idle)).map((h) => [h.kind, h.cause, h.actor, h.toStep, h.toStatus, h.failureReason]),
  ).toEqual([
    ['created', 'merchant_api', f.merchant.keyId, 'network_select', 'pending', null],
    ['failed', 'expiry', null, 'failed', 'failed', 'expired'],
  ]);
});

it('a change computed from a stale version writes no history, like it writes nothing else', async () => {
  const init = await f.call('/v1/cashier/init', {});
  const id = init.body.session;
  const em = f.t.app.fork();
  const stale = entitySnapshot(await em.findOneOrFail(Session, { id }));
  await step(id, 'select_network', 'eth');
  const { applied } = await f.t.app.fork().transactional((tx) =>
    transitionSessions(
      tx,
      [
        {
          kind: 'failed',
          session: stale,
          set: { status: 'failed', step: 'failed', failureReason: 'expired', settledAt: new Date() },
        },
      ],
      'report',
    ),
  );
  expect(applied.size).toBe(0);
  expect((await historyOf(id)).map((h) => [h.version, h.kind, h.toStep])).toEqual([
    [0, 'created', 'network_select'],
    [1, 'step', 'connect_wallet'],
  ]);
});
