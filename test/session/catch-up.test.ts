import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '../../src/db/orm.ts';
import type { Consumer } from '../../src/followers/types.ts';
import { Session } from '../../src/modules/session/session.entity.ts';
import { entitySnapshot } from '../../src/modules/session/session.service.ts';
import { type SessionChange, transitionSessionSteps } from '../../src/modules/session/session.transition.ts';
import { followerOf, mine, routerPayer, type SessionFixture, sessionFixture, webhooksOf } from './support.ts';

/**
 * A follower catching up (a backfill, a restart after downtime) finds payments already at their
 * confirmation depth: their sessions are claimed and completed in one write of the row (the
 * transition engine's steps: `payment_found`, then `completed`, each in the history), with the same
 * rules as one after the other: one payment per session, nothing completed before its depth, a
 * reorganisation releases the claim, a crash inside the transaction leaves nothing behind.
 */

let f: SessionFixture;
let payer: Wallet;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  payer = await routerPayer(f);
});
afterAll(() => f?.close());

/** A session at awaiting_payment for `payer`; returns its id and the router call to send. */
async function readyToPay(amount = '1') {
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount,
    callback_url: 'http://127.0.0.1:9/webhook',
  });
  const res = await f.call('/v1/cashier/step', {
    session: init.body.session,
    action: 'wallet_connected',
    value: payer.address,
  });
  expect(res.body.step).toBe('awaiting_payment');
  return { session: init.body.session, call: res.body.wallet_action!.params[0]! };
}

/** Signs the router call with the payer's next nonce (raw, so it can be sent again after a reorg). */
async function signed(call: { to: string; data: string }): Promise<string> {
  const nonce = Number(BigInt(await f.provider.send('eth_getTransactionCount', [payer.address, 'pending'])));
  return payer.signTransaction(
    await payer.populateTransaction({ to: call.to, data: call.data, nonce, gasLimit: 200_000n }),
  );
}

async function send(raw: string): Promise<string> {
  const hash = (await f.provider.broadcastTransaction(raw)).hash.toLowerCase();
  await f.provider.waitForTransaction(hash);
  return hash;
}

const statusOf = async (id: string) =>
  (await f.t.app.fork().execute<{ status: string }[]>('select status from sessions where id = ?', [id]))[0]!
    .status;

/** The session's history after its creation: kind, statuses, version. */
const historyOf = (id: string) =>
  f.t.app
    .fork()
    .execute<{ version: number; kind: string; from_status: string; to_status: string; cause: string }[]>(
      `select version, kind, from_status, to_status, cause from session_history
        where session_id = ? and kind not in ('created', 'step') order by version`,
      [id],
    );

/** A follower whose block transactions count the transition engine's writes of sessions. */
function countingFollower(fail?: () => boolean) {
  const counts = { sessionWrites: 0 };
  const counting = (tx: EntityManager): EntityManager =>
    new Proxy(tx, {
      get(target, prop) {
        if (prop === 'execute')
          return (sql: string, ...rest: unknown[]) => {
            if (/^\s*update sessions t set/.test(sql)) counts.sessionWrites++;
            return (target.execute as (...a: unknown[]) => unknown)(sql, ...rest);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const follower = followerOf(f, {
    wrap: (consumer: Consumer): Consumer => ({
      ...consumer,
      async handle(tx, event) {
        await consumer.handle(counting(tx), event);
        if (event.type === 'block' && event.logs.length > 0 && fail?.()) throw new Error('killed inside');
      },
    }),
  });
  return { ...follower, counts };
}

describe('a payment found already at its depth', () => {
  it('claims and completes its session in one write: both transitions in its history, one payment.completed', async () => {
    await followerOf(f).pass(); // caught up: the tick below sees only this payment
    const { session, call } = await readyToPay('1');
    const tx = await send(await signed(call));
    await mine(f, 2); // depth 3: the 1 USDC tier
    const follower = countingFollower();
    const result = await follower.pass();
    expect(result.completed).toEqual([session]);
    expect(follower.counts.sessionWrites).toBe(1);
    expect(await historyOf(session)).toMatchObject([
      { kind: 'payment_found', from_status: 'pending', to_status: 'processing', cause: 'chain' },
      { kind: 'completed', from_status: 'processing', to_status: 'completed', cause: 'chain' },
    ]);
    const [found, completed] = await historyOf(session);
    expect(completed!.version).toBe(found!.version + 1);
    const row = await f.t.app.fork().findOneOrFail(Session, { id: session });
    expect(row.version).toBe(completed!.version);
    expect(await webhooksOf(f, session)).toMatchObject([
      { event: 'payment.completed', status: 'completed', tx_hash: tx },
    ]);
  });

  it('a payment short of its depth is only claimed, and completes at its depth, once', async () => {
    await followerOf(f).pass();
    const { session, call } = await readyToPay('1');
    await send(await signed(call));
    await mine(f, 1); // depth 2 of 3
    const follower = followerOf(f);
    await follower.pass();
    expect(await statusOf(session)).toBe('processing');
    expect((await historyOf(session)).map((h) => h.kind)).toEqual(['payment_found']);
    await mine(f, 1);
    await follower.pass();
    expect(await statusOf(session)).toBe('completed');
    expect((await historyOf(session)).map((h) => h.kind)).toEqual(['payment_found', 'completed']);
    expect(await webhooksOf(f, session)).toHaveLength(1);
  });

  it('two payments of one order in one range: the first pays and completes the session, once; the second stays unclaimed', async () => {
    await followerOf(f).pass();
    const { session, call } = await readyToPay('1');
    const first = await send(await signed(call));
    const second = await send(await signed(call));
    await mine(f, 3);
    await followerOf(f).pass();
    expect(await statusOf(session)).toBe('completed');
    expect(await webhooksOf(f, session)).toMatchObject([{ event: 'payment.completed', tx_hash: first }]);
    const claims = await f.t.app.fork().execute<{ tx_hash: string; claimed: boolean }[]>(
      `select p.tx_hash, exists (select 1 from sessions s where s.payment_id = p.id) as claimed
           from payments p where p.tx_hash in (?, ?) order by p.block_number, p.log_index`,
      [first, second],
    );
    expect(claims).toEqual([
      { tx_hash: first, claimed: true },
      { tx_hash: second, claimed: false },
    ]);
  });

  it('a reorganisation before depth releases the claim; found again at its depth, it completes in one write, once', async () => {
    await followerOf(f).pass();
    const { session, call } = await readyToPay('1');
    const raw = await signed(call);
    await send(raw);
    const follower = followerOf(f);
    await follower.pass();
    expect(await statusOf(session)).toBe('processing');
    // The payment's block and the one after are replaced by empty blocks, before its depth.
    await mine(f, 1);
    await f.provider.send('anvil_reorg', [2, []]);
    const lost = await follower.pass();
    expect(lost.reorged).toEqual([session]);
    expect(lost.completed).toEqual([]);
    // Mined again, and found only once it is deep enough.
    await send(raw);
    await mine(f, 2);
    const again = countingFollower();
    const result = await again.pass();
    expect(result.completed).toEqual([session]);
    expect(again.counts.sessionWrites).toBe(1);
    expect((await historyOf(session)).map((h) => h.kind)).toEqual([
      'payment_found',
      'payment_lost',
      'payment_found',
      'completed',
    ]);
    expect(await webhooksOf(f, session)).toHaveLength(1);
  });

  it('a crash inside the transaction after the write rolls it all back; the restart completes each session once', async () => {
    await followerOf(f).pass();
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { session, call } = await readyToPay('1');
      await send(await signed(call));
      sessions.push(session);
    }
    await mine(f, 3);
    const crashing = countingFollower(() => true);
    await expect(crashing.pass()).rejects.toThrow('killed inside');
    expect(crashing.counts.sessionWrites).toBeGreaterThan(0); // the write happened, then rolled back
    for (const session of sessions) {
      expect(await statusOf(session)).toBe('pending');
      expect(await historyOf(session)).toEqual([]);
      expect(await webhooksOf(f, session)).toEqual([]);
    }
    await followerOf(f).pass();
    await followerOf(f).pass();
    for (const session of sessions) {
      expect(await statusOf(session)).toBe('completed');
      expect((await historyOf(session)).map((h) => h.kind)).toEqual(['payment_found', 'completed']);
      expect(await webhooksOf(f, session)).toHaveLength(1);
    }
  });
});

describe('the transition engine’s steps', () => {
  /** A fresh pending session's snapshot and the two steps of a payment found at its depth. */
  async function twoSteps() {
    const { session: id } = await readyToPay('1');
    const session = entitySnapshot(await f.t.app.fork().findOneOrFail(Session, { id }));
    const found: SessionChange = {
      kind: 'payment_found',
      session,
      set: { status: 'processing', step: 'processing' },
    };
    const completed: SessionChange = {
      kind: 'completed',
      session: { ...session, version: session.version + 1, status: 'processing', step: 'processing' },
      set: { status: 'completed', step: 'completed', settledAt: new Date() },
    };
    return { id, found, completed };
  }

  it('refuses a step that does not start where the step before left the row', async () => {
    const { id, found, completed } = await twoSteps();
    const skipped = {
      ...completed,
      session: { ...completed.session, version: completed.session.version + 1 },
    };
    await expect(
      f.t.app.fork().transactional((tx) => transitionSessionSteps(tx, [[found, skipped]], 'report')),
    ).rejects.toThrow(/does not start where step 1 left it/);
    const pending = { ...completed, session: { ...completed.session, status: 'pending' as const } };
    await expect(
      f.t.app.fork().transactional((tx) => transitionSessionSteps(tx, [[found, pending]], 'report')),
    ).rejects.toThrow(/cannot move pending to completed|does not start where/);
    expect(await statusOf(id)).toBe('pending');
    expect(await historyOf(id)).toEqual([]);
  });

  it('a row whose first step lost its version race writes none of its steps: no history, no event', async () => {
    const { id, found, completed } = await twoSteps();
    // Another writer moves the row on between the read and the write.
    await f.t.app.fork().execute('update sessions set version = version + 1 where id = ?', [id]);
    const result = await f.t.app
      .fork()
      .transactional((tx) => transitionSessionSteps(tx, [[found, completed]], 'report'));
    expect(result.applied.size).toBe(0);
    expect(result.stale.map((c) => c.kind)).toEqual(['payment_found']);
    expect(await statusOf(id)).toBe('pending');
    expect(await historyOf(id)).toEqual([]);
    expect(await webhooksOf(f, id)).toEqual([]);
  });
});
