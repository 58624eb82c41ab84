import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockHeader } from '../../src/chains/types.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import type { Consumer, TickContext } from '../../src/followers/types.ts';
import { countingStatements } from '../support/db.ts';
import { type Body, type DepositFixture, depositFixture, depositFollower } from './support.ts';

/**
 * The deposits stream's settle pass costs nothing when it has nothing to do: not when the tick's own
 * block transaction settled at the evidence block, not again at an evidence block where it already
 * ran, and not at all while nothing waits to settle (a chain mining empty blocks moves the evidence
 * block every tick). Work that arrives after such a pass is still done: a deposit whose block finality
 * reaches without a block for the stream, a sweep mined at the next evidence block, anything a block
 * with logs brings.
 */

let f: DepositFixture;
let follower: ReturnType<typeof depositFollower>;
let consumer: Consumer;

beforeAll(async () => {
  f = await depositFixture();
  follower = depositFollower(f, {
    stream: (c) => {
      consumer = c;
      return c;
    },
  });
});
afterAll(() => f?.close());

const header = (number: number): BlockHeader => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${'0'.repeat(64)}`,
  timestamp: 1_000 + number,
});

/** A tick context at `evidence` (final and the cursor), counting the transactions the pass opens. */
function tick(evidence: number) {
  const ctx = {
    head: header(evidence),
    finalized: evidence,
    cursor: header(evidence),
    transactions: 0,
    evidence: async () => header(evidence),
    transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
      ctx.transactions++;
      return f.t.app.fork().transactional(work);
    },
    read: <T>(work: (em: EntityManager) => Promise<T>): Promise<T> => work(f.t.app.fork()),
  };
  return ctx satisfies TickContext;
}

/** An after-tick pass at `evidence`; how many transactions it opened. */
async function afterTick(evidence: number): Promise<number> {
  const ctx = tick(evidence);
  await consumer.afterTick!(ctx);
  return ctx.transactions;
}

/**
 * What the follower's block transaction does for the stream: a block event, then finality (at `to`
 * unless told); `inside` runs in it first (what a handler of the block's logs would write). Answers
 * how many statements the stream's handler ran.
 */
async function blockTransaction(
  to: number,
  options: { logs?: Body[]; finalized?: number; inside?: (tx: EntityManager) => Promise<unknown> } = {},
): Promise<number> {
  const finalized = options.finalized ?? to;
  return f.t.app.fork().transactional(async (tx) => {
    await options.inside?.(tx);
    const { em: counted, count } = countingStatements(tx);
    const head = header(to);
    const logs = options.logs ?? [];
    await consumer.handle(counted, { type: 'block', from: to, to: head, logs, head, finalized });
    await consumer.handle(counted, { type: 'finalize', block: finalized });
    return count();
  });
}

/** A log of none of the stream's contracts: a block with logs, whatever they are. */
const foreignLog = (blockNumber: number) =>
  ({ address: `0x${'9'.repeat(40)}`, topics: [], data: '0x', blockNumber }) as unknown as Body;

const depositStatus = async (playerId: string) =>
  (
    await f.t.app
      .fork()
      .execute<{ status: string; block_number: string }[]>(
        `select status, block_number::text from deposits where player_id = ?`,
        [playerId],
      )
  )[0];

describe('the deposits stream after a tick', () => {
  it('skips the pass the block transaction already ran, and any pass while nothing waits to settle', async () => {
    await follower.tick();
    const at = await f.provider.getBlockNumber();
    // A block with logs: the block transaction's pass runs (and finds nothing left to settle).
    expect(await blockTransaction(at, { logs: [foreignLog(at)] })).toBeGreaterThan(0);
    expect(await afterTick(at)).toBe(0);
    // Finality moved without a block for the stream: nothing waits, so no pass (one each before).
    expect(await afterTick(at + 1)).toBe(0);
    expect(await afterTick(at + 2)).toBe(0);
    // Blocks with no logs: their finality runs no statement (the settle pass's three before).
    expect(await blockTransaction(at + 3)).toBe(0);
    expect(await blockTransaction(at + 4)).toBe(0);
    expect(await afterTick(at + 4)).toBe(0);
  });

  it('credits a deposit whose block becomes final after an empty pass, without a block for the stream', async () => {
    const address = await f.address('late-final');
    // The deposit is recorded pending (its block is not final yet: finality depth 4).
    await f.send('USDT', address, '3');
    await follower.tick();
    const pending = await depositStatus('late-final');
    expect(pending?.status).toBe('pending');
    const block = Number(pending!.block_number);
    // Below the deposit's block nothing is due: no pass (the tick's own found the deposit waiting).
    expect(await afterTick(block - 1)).toBe(0);
    expect((await depositStatus('late-final'))?.status).toBe('pending');
    // Finality reaches the deposit's block: the pass runs and credits it.
    expect(await afterTick(block)).toBe(1);
    expect((await depositStatus('late-final'))?.status).toBe('credited');
  });

  it('finishes a sweep mined after an empty pass once its block is final', async () => {
    const at = (await f.provider.getBlockNumber()) + 100;
    expect(await afterTick(at)).toBe(0);
    // The sweep's log comes in a block at at + 1, not final yet: its handler records it mined.
    await blockTransaction(at + 1, {
      logs: [foreignLog(at + 1)],
      finalized: at,
      inside: (tx) =>
        tx.execute(
          `insert into sweeps (id, network, status, items, tx_hash, mined_block, outcomes, created_at, updated_at)
             values ('sw_idle_tick', ?, 'mined', 0, ?, ?, '[]'::jsonb, now(), now())`,
          [f.network, `0x${'ab'.repeat(32)}`, at + 1],
        ),
    });
    expect(await afterTick(at)).toBe(0);
    expect(await afterTick(at + 1)).toBe(1);
    const [sweep] = await f.t.app
      .fork()
      .execute<{ status: string }[]>(`select status from sweeps where id = 'sw_idle_tick'`);
    expect(sweep?.status).toBe('done');
  });

  it('runs the pass again at the same evidence block after a block with logs or a reorganisation', async () => {
    const at = (await f.provider.getBlockNumber()) + 200;
    expect(await afterTick(at)).toBe(0);
    // A block with logs (here none of the stream's: what it records is not looked at) at another height.
    await f.t.app.fork().transactional(async (tx) => {
      const head = header(at + 5);
      await consumer.handle(tx, {
        type: 'block',
        from: at + 5,
        to: head,
        logs: [foreignLog(at + 5)],
        head,
        finalized: at,
      });
    });
    expect(await afterTick(at)).toBe(1);
    expect(await afterTick(at)).toBe(0);
    await f.t.app
      .fork()
      .transactional((tx) =>
        consumer.handle(tx, { type: 'reorg', ancestor: header(at - 1), head: header(at) }),
      );
    expect(await afterTick(at)).toBe(1);
  });

  it("trusts what a block transaction found only once the stream's cursor moved to its block", async () => {
    const at = (await f.provider.getBlockNumber()) + 300;
    // A block transaction at at + 1 whose cursor move the tick did not keep (it failed after): the
    // after-tick pass at `at` sees the cursor below it, so a later pass is not skipped on its word.
    await blockTransaction(at + 1, { logs: [foreignLog(at + 1)], finalized: at });
    expect(await afterTick(at)).toBe(0);
    expect(await afterTick(at + 1)).toBe(1);
    expect(await afterTick(at + 2)).toBe(0);
  });
});
