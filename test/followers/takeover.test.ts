import { setTimeout as sleep } from 'node:timers/promises';
import type { Wallet } from 'ethers';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { sessionChanged } from '../../src/modules/session/session.transition.ts';
import {
  mine,
  type SessionFixture,
  sendWalletAction,
  sessionFixture,
  type WalletActionBody,
  webhooksOf,
} from '../session/support.ts';
import { leaderOf, spawnWorker, type WorkerProcess } from './processes.ts';

/**
 * Chain following across real worker processes: a SIGKILLed leader's network is taken over within
 * seconds, and a session completed by a worker process is pushed to a subscriber of the API process.
 */

let f: SessionFixture;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  f = await sessionFixture({ players: 2 });
});
afterAll(async () => {
  for (const w of workers) await w.kill();
  await f?.close();
});

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(20);
  }
}

/** A session of `player` at awaiting_payment; returns its id and the payment's wallet action. */
async function readyToPay(
  player: Wallet,
  amount: string,
): Promise<{ session: string; payment: WalletActionBody }> {
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount,
    callback_url: 'http://127.0.0.1:9/hook',
  });
  const session = init.body.session;
  let body = (
    await f.call('/v1/cashier/step', { session, action: 'wallet_connected', value: player.address })
  ).body;
  if (body.step === 'awaiting_approval') {
    const approval = await sendWalletAction(player, body.wallet_action);
    body = (await f.call('/v1/cashier/step', { session, action: 'approval_submitted', value: approval }))
      .body;
  }
  expect(body.step).toBe('awaiting_payment');
  return { session, payment: body.wallet_action! };
}

const statusOf = async (session: string) => (await f.call('/v1/cashier/status', { session })).body.status;

it('a leader killed with SIGKILL: a standby takes the network over within 15 s, and a payment made in the gap completes', async () => {
  const a = await spawnWorker(f, 'worker-a');
  workers.push(a);
  await until(async () => (await leaderOf(f)) === 'worker-a', 30_000);
  const b = await spawnWorker(f, 'worker-b');
  workers.push(b);
  const { session, payment } = await readyToPay(f.players[0]!, '3');

  const killedAt = Date.now();
  await a.kill('SIGKILL');
  await sendWalletAction(f.players[0]!, payment); // paid while nobody follows the chain
  await until(async () => (await leaderOf(f)) === 'worker-b', 15_000);
  const takeoverMs = Date.now() - killedAt;
  expect(takeoverMs).toBeLessThan(15_000);

  for (let i = 0; i < 100 && (await statusOf(session)) !== 'completed'; i++) {
    await mine(f, 1);
    await sleep(100);
  }
  expect(await statusOf(session)).toBe('completed');
  expect(await webhooksOf(f, session)).toHaveLength(1);
});

it('a subscriber on the API process sees a session completed by a worker process within 200 ms of the commit', async () => {
  if (!(await leaderOf(f))?.startsWith('worker-')) throw new Error('no worker process leads the network');
  const { session, payment } = await readyToPay(f.players[1]!, '4');
  const token = await f.t.operatorToken();
  const client = createClient({
    url: `${f.t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
  });
  const seen: { status: string; at: number }[] = [];
  const stop = client.subscribe<{ sessionChanged: { id: string; status: string } }>(
    { query: 'subscription($id: ID) { sessionChanged(id: $id) { id status } }', variables: { id: session } },
    {
      next: (v) => seen.push({ status: v.data!.sessionChanged.status, at: Date.now() }),
      error: () => {},
      complete: () => {},
    },
  );
  try {
    await until(async () => f.t.app.pubsub.subscribers(sessionChanged) > 0, 5_000);
    await sendWalletAction(f.players[1]!, payment);
    // The moment the completion is committed, as closely as the database lets a reader see it.
    let committedAt = 0;
    for (let i = 0; i < 2_000 && !committedAt; i++) {
      const [row] = await f.t.app
        .fork()
        .execute<{ status: string }[]>('select status from sessions where id = ?', [session]);
      if (row?.status === 'completed') committedAt = Date.now();
      else if (i % 50 === 49) await mine(f, 1);
      else await sleep(5);
    }
    expect(committedAt).toBeGreaterThan(0);
    await until(async () => seen.some((s) => s.status === 'completed'), 2_000);
    const notifiedAt = seen.find((s) => s.status === 'completed')!.at;
    expect(notifiedAt - committedAt).toBeLessThan(200);
    expect(seen.map((s) => s.status)).toContain('processing');
  } finally {
    stop();
    await client.dispose();
  }
});
