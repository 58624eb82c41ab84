import type { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '../../src/db/orm.ts';
import { publish } from '../../src/db/topic.ts';
import type { Consumer } from '../../src/followers/types.ts';
import { Session } from '../../src/modules/session/session.entity.ts';
import { entitySnapshot } from '../../src/modules/session/session.service.ts';
import { completion } from '../../src/modules/session/session.settle.ts';
import { sessionChanged, transitionSessions } from '../../src/modules/session/session.transition.ts';
import { followerOf, mine, routerPayer, type SessionFixture, sessionFixture, webhooksOf } from './support.ts';

/**
 * A block range settles its sessions set-based: however many sessions it pays and completes, its
 * transaction sends the same statements (one guarded UPDATE, one history INSERT, one outbox statement,
 * one NOTIFY statement, …), never one per session. And a set-based settle of a mixed batch writes and
 * announces each session once: a session settled already, one whose version moved under the batch,
 * and the whole batch applied again write nothing and announce nothing.
 */

let f: SessionFixture;
let payer: Wallet;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  payer = await routerPayer(f);
});
afterAll(() => f?.close());

/** A session at awaiting_payment for `payer`; its id and the router call that pays it. */
async function readyToPay() {
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount: '1',
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

/** Pays every session in one block. */
async function payInOneBlock(calls: { to: string; data: string }[]): Promise<void> {
  await f.provider.send('evm_setAutomine', [false]);
  try {
    let nonce = Number(BigInt(await f.provider.send('eth_getTransactionCount', [payer.address, 'pending'])));
    for (const call of calls)
      await payer.sendTransaction({ to: call.to, data: call.data, nonce: nonce++, gasLimit: 200_000n });
    await mine(f, 1);
  } finally {
    await f.provider.send('evm_setAutomine', [true]);
  }
}

/** Counts every statement sent in `tx` (through `execute` and through the connection, src/db/bulk.ts). */
function counting(tx: EntityManager, count: () => void): EntityManager {
  const wrap = <T extends object>(target: T, method: string): T =>
    new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop, t);
        if (typeof value !== 'function') return value;
        if (prop === method)
          return (...args: unknown[]) => {
            count();
            return value.apply(t, args);
          };
        if (prop === 'getConnection' && method === 'execute')
          return (...args: unknown[]) => wrap(value.apply(t, args) as object, 'executeQuery');
        return value.bind(t);
      },
    });
  return wrap(tx, 'execute');
}

/** Pays and completes `n` sessions in one range; the statements of that range's block transaction. */
async function settleRange(n: number): Promise<{ statements: number; sessions: string[] }> {
  await followerOf(f).pass(); // caught up: the next pass's range holds only these payments
  const ready = [];
  for (let i = 0; i < n; i++) ready.push(await readyToPay());
  await payInOneBlock(ready.map((r) => r.call));
  await mine(f, 3); // past the 1 USDC tier's depth: claimed and completed in the same range
  const ranges: number[] = [];
  const follower = followerOf(f, {
    wrap: (consumer: Consumer): Consumer => ({
      ...consumer,
      async handle(tx, event) {
        let statements = 0;
        await consumer.handle(
          counting(tx, () => statements++),
          event,
        );
        if (event.type === 'block' && event.logs.length > 0) ranges.push(statements);
      },
    }),
  });
  const result = await follower.pass();
  const sessions = ready.map((r) => r.session);
  expect(result.completed.sort()).toEqual([...sessions].sort());
  expect(ranges).toHaveLength(1);
  return { statements: ranges[0]!, sessions };
}

describe('a range settles set-based', () => {
  it('the same statements settle 2 sessions and 8: none per session', async () => {
    const two = await settleRange(2);
    const eight = await settleRange(8);
    expect(two.statements).toBeGreaterThan(0);
    expect(eight.statements).toBe(two.statements);
    for (const session of [...two.sessions, ...eight.sessions])
      expect(await webhooksOf(f, session)).toMatchObject([{ event: 'payment.completed' }]);
  });
});

describe('a set-based settle of a mixed batch', () => {
  it('writes and announces each session once: settled already, version moved, and a repeat write nothing', async () => {
    await followerOf(f).pass();
    const ready = [await readyToPay(), await readyToPay(), await readyToPay()];
    await payInOneBlock(ready.map((r) => r.call));
    await followerOf(f).pass(); // depth 1 of 3: claimed, processing
    const ids = ready.map((r) => r.session);
    const [fresh, settled, moved] = ids as [string, string, string];
    const snapshots = await Promise.all(
      ids.map(async (id) => entitySnapshot(await f.t.app.fork().findOneOrFail(Session, { id }))),
    );
    expect(snapshots.map((s) => s.status)).toEqual(['processing', 'processing', 'processing']);
    const batch = snapshots.map((s) => completion(s, `0x${'ab'.repeat(32)}`, new Date()));

    const notices: string[] = [];
    const off = await f.t.app.pubsub.on(sessionChanged, (n) => notices.push(n.id));
    try {
      // One of the batch settled on its own before, another moved on (a player's report) under it.
      await f.t.app.fork().transactional((tx) => transitionSessions(tx, [batch[1]!], 'report'));
      await f.t.app.fork().execute('update sessions set version = version + 1 where id = ?', [moved]);

      const first = await f.t.app.fork().transactional((tx) => transitionSessions(tx, batch, 'report'));
      expect([...first.applied]).toEqual([fresh]);
      expect(first.stale.map((c) => c.session.id).sort()).toEqual([settled, moved].sort());
      // The whole batch again (a retried range): every change is stale now.
      const again = await f.t.app.fork().transactional((tx) => transitionSessions(tx, batch, 'report'));
      expect(again.applied.size).toBe(0);
      expect(again.stale).toHaveLength(3);

      // Notices arrive in commit order: once this one is heard, every earlier one was.
      await f.t.app
        .fork()
        .transactional((tx) => publish(tx, sessionChanged, [{ id: 'end', merchantId: '-' }]));
      for (let i = 0; i < 500 && !notices.includes('end'); i++) await new Promise((r) => setTimeout(r, 10));
      expect(notices.filter((id) => ids.includes(id)).sort()).toEqual([fresh, settled].sort());
    } finally {
      await off();
    }

    const completions = await f.t.app.fork().execute<{ session_id: string; n: string }[]>(
      `select session_id, count(*) as n from session_history where kind = 'completed' and session_id in (?, ?, ?)
          group by session_id`,
      ids,
    );
    expect(Object.fromEntries(completions.map((r) => [r.session_id, Number(r.n)]))).toEqual({
      [fresh]: 1,
      [settled]: 1,
    });
    expect(await webhooksOf(f, fresh)).toMatchObject([{ event: 'payment.completed', session_id: fresh }]);
    expect(await webhooksOf(f, settled)).toMatchObject([{ event: 'payment.completed', session_id: settled }]);
    expect(await webhooksOf(f, moved)).toEqual([]);
    const rows = await f.t.app.fork().find(Session, { id: ids }, { orderBy: { id: 'asc' } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(fresh)!.status).toBe('completed');
    expect(byId.get(settled)!.status).toBe('completed');
    expect(byId.get(moved)!.status).toBe('processing');
  });
});
