import { keccak256, toUtf8Bytes, type Wallet } from 'ethers';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EntityManager } from '../../src/db/orm.ts';
import { MAX_UNSAVED_MS } from '../../src/followers/follower.ts';
import { PAYMENT_ROUTER } from '../../src/modules/session/session.chain.ts';
import {
  followerOf,
  mine,
  routerPayer,
  type SessionFixture,
  sessionFixture,
  sessionRow,
  step,
} from '../session/support.ts';

/**
 * Blocks every stream declares idle cost the follower no statement: its cursors and window move in
 * memory and are written with the next transaction that has something to write, or once the lag
 * bound is reached. Nothing is lost for it: a restart reads the unwritten blocks again from the stored
 * cursor, and a reorganisation across them is found in the window in memory and handled as always.
 */

let f: SessionFixture;
let payer: Wallet;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  payer = await routerPayer(f);
});
afterAll(() => f?.close());
afterEach(() => {
  vi.restoreAllMocks();
});

/** The sessions stream's follower on `eth`, counting the transactions it opens and their statements. */
function follower(options: { maxUnsavedBlocks?: number; maxUnsavedMs?: number } = {}) {
  const seen = { transactions: 0, statements: 0 };
  const counted = (em: EntityManager): EntityManager =>
    new Proxy(em, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key === 'execute')
          return (...args: unknown[]) => {
            seen.statements++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        if (key === 'transactional')
          return <T>(work: (tx: EntityManager) => Promise<T>) =>
            target.transactional((tx) => {
              seen.transactions++;
              return work(counted(tx));
            });
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const { follower: made } = followerOf(f, {
    ...options,
    // Reads outside a transaction (the after-tick passes') are not counted: only what runs in one.
    fork: () => {
      const em = f.t.app.fork();
      return new Proxy(em, {
        get(target, key, receiver) {
          if (key === 'transactional') return counted(target).transactional;
          const value = Reflect.get(target, key, receiver);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  });
  return { follower: made, seen };
}

const storedCursor = async () =>
  Number(
    (
      await f.t.app
        .fork()
        .execute<{ n: string }[]>(
          `select block_number::text as n from chain_cursors where network = 'eth' and stream = 'sessions'`,
        )
    )[0]!.n,
  );

/** The stored window's rows that are not the node's canonical blocks (by hash). */
async function staleWindowRows(): Promise<number[]> {
  const rows = await f.t.app
    .fork()
    .execute<{ number: string; hash: string }[]>(
      `select number::text, hash from chain_blocks where network = 'eth' order by number`,
    );
  const stale: number[] = [];
  for (const row of rows) {
    const block = await f.provider.send('eth_getBlockByNumber', [
      `0x${Number(row.number).toString(16)}`,
      false,
    ]);
    if (block?.hash !== row.hash) stale.push(Number(row.number));
  }
  return stale;
}

/** A session at awaiting_payment for the payer, and the router call that pays it. */
async function readyToPay() {
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount: '1',
    callback_url: 'http://127.0.0.1:9/webhook',
  });
  const session = init.body.session as string;
  const ready = await step(f, session, 'wallet_connected', payer.address);
  return { session, call: ready.wallet_action!.params[0]! };
}

async function pay(call: { to: string; data: string }): Promise<string> {
  const tx = await payer.sendTransaction({ to: call.to, data: call.data, gasLimit: 200_000n });
  await tx.wait();
  return tx.hash.toLowerCase();
}

const ledgerRows = async (txHash: string) =>
  (
    await f.t.app
      .fork()
      .execute<{ n: string }[]>('select count(*)::text as n from payments where tx_hash = ?', [txHash])
  )[0]!.n;

/** Ticks until a tick finds the chain as it was (the stream caught up, what it found trusted). */
async function settle(follower: { tick(): Promise<unknown> }) {
  for (let i = 0; i < 3; i++) await follower.tick();
}

describe('blocks every stream declares idle', () => {
  it('cost the follower no statement until the block bound writes them', async () => {
    const { follower: made, seen } = follower({ maxUnsavedBlocks: 3, maxUnsavedMs: 3_600_000 });
    await mine(f, 1);
    await settle(made);
    const stored = await storedCursor();
    seen.transactions = seen.statements = 0;
    await mine(f, 1);
    expect((await made.tick()).caughtUp).toBe(true);
    await mine(f, 1);
    await made.tick();
    expect(seen).toEqual({ transactions: 0, statements: 0 });
    expect(await storedCursor()).toBe(stored);
    // The third unwritten block reaches the bound: one transaction writes the cursor and the window.
    await mine(f, 1);
    const third = await made.tick();
    expect(seen.transactions).toBe(1);
    expect(await storedCursor()).toBe(third.head.number);
    expect(await staleWindowRows()).toEqual([]);
  });

  it('are written once they waited MAX_UNSAVED_MS, without a new block', async () => {
    const { follower: made, seen } = follower({ maxUnsavedBlocks: 1_000 });
    await settle(made);
    const stored = await storedCursor();
    await mine(f, 1);
    seen.transactions = 0;
    const idle = await made.tick();
    expect(seen.transactions).toBe(0);
    expect(await storedCursor()).toBe(stored);
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + MAX_UNSAVED_MS);
    await made.tick();
    expect(seen.transactions).toBe(1);
    expect(await storedCursor()).toBe(idle.head.number);
  });

  it('are read again after a restart, and a payment right after them is found once', async () => {
    const { follower: before } = follower({ maxUnsavedBlocks: 1_000, maxUnsavedMs: 3_600_000 });
    await settle(before);
    const stored = await storedCursor();
    await mine(f, 2);
    await before.tick(); // two idle blocks, unwritten
    expect(await storedCursor()).toBe(stored);
    const { session, call } = await readyToPay();
    const tx = await pay(call);
    // The process dies here, before its next tick (no flush): a new one starts from the stored cursor.
    const { follower: after } = follower({ maxUnsavedBlocks: 1_000, maxUnsavedMs: 3_600_000 });
    await after.tick();
    expect((await sessionRow(f, session)).payment?.txHash).toBe(tx);
    expect(await ledgerRows(tx)).toBe('1');
    await mine(f, 3);
    await after.tick();
    expect((await sessionRow(f, session)).status).toBe('completed');
    expect(await ledgerRows(tx)).toBe('1');
  });

  it('replaced by a reorganisation are released from the window in memory; the new chain is read once', async () => {
    const { follower: made } = follower({ maxUnsavedBlocks: 1_000, maxUnsavedMs: 3_600_000 });
    await mine(f, 1);
    await settle(made);
    const stored = await storedCursor();
    const snapshot = await f.provider.send('evm_snapshot', []);
    await mine(f, 3);
    await made.tick(); // three idle blocks, in the window in memory only
    expect(await storedCursor()).toBe(stored);
    await f.provider.send('evm_revert', [snapshot]);
    // The new chain from the stored cursor on: a payment in its first block, then three more.
    const { session, call } = await readyToPay();
    const tx = await pay(call);
    await mine(f, 3);
    const result = await made.tick();
    expect(result.reorg?.number).toBe(stored);
    expect((await sessionRow(f, session)).payment?.txHash).toBe(tx);
    expect(await ledgerRows(tx)).toBe('1');
    expect(await storedCursor()).toBe(result.head.number);
    expect(await staleWindowRows()).toEqual([]);
  });

  it('do not hold back a session an operator attached a payment to from another process', async () => {
    const { follower: made, seen } = follower({ maxUnsavedBlocks: 1_000, maxUnsavedMs: 3_600_000 });
    const { call } = await readyToPay();
    // Paid under another order_ref: a stray payment, recorded and claimed by no session.
    const args = PAYMENT_ROUTER.decodeFunctionData('pay', call.data);
    const data = PAYMENT_ROUTER.encodeFunctionData('pay', [
      args[0],
      args[1],
      args[2],
      keccak256(toUtf8Bytes('no session')),
      args[4],
    ]);
    const tx = (await (await payer.sendTransaction({ to: call.to, data, gasLimit: 200_000n })).wait())!.hash;
    await mine(f, 1);
    await settle(made);
    seen.transactions = 0;
    await mine(f, 3);
    await made.tick(); // idle: no paid session waits
    expect(seen.transactions).toBe(0);
    // Operators decide on a payment only as deep as the stored cursor says (stray.service.ts).
    await made.flush();
    const app = f.t.app;
    const operator = await app.services.operators.createToken(app.fork(), {
      name: 'lazy',
      scopes: ['admin'],
    });
    const { session } = await readyToPay();
    const [payment] = await app
      .fork()
      .execute<{ id: string }[]>('select id::text as id from payments where tx_hash = ?', [tx.toLowerCase()]);
    await app.services.strayPayments.attach(app.fork(), operator.id, payment!.id, session);
    expect((await sessionRow(f, session)).status).toBe('processing');
    // Empty blocks only from here: the stream must look again, not skip them on what it knew.
    for (let i = 0; i < 4; i++) {
      await mine(f, 1);
      await made.tick();
    }
    expect((await sessionRow(f, session)).status).toBe('completed');
  });
});
