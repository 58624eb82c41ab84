import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockHeader } from '../../src/chains/types.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import type { Consumer, TickContext } from '../../src/followers/types.ts';
import { type Body, type DepositFixture, depositFixture, depositFollower } from './support.ts';

/**
 * The deposits stream's after-tick settle pass costs nothing when it has nothing to do: not when the
 * tick's own block transaction settled at the evidence block, not again at an evidence block where it
 * already ran. Work that arrives after such a pass is still done: a deposit whose block finality
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

/** What the follower's block transaction does for the stream: a block event, then finality. */
const blockTransaction = (to: number, logs: Body[] = []) =>
  f.t.app.fork().transactional(async (tx) => {
    const head = header(to);
    await consumer.handle(tx, { type: 'block', from: to, to: head, logs, head, finalized: to });
    await consumer.handle(tx, { type: 'finalize', block: to });
  });

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
  it('skips the pass the block transaction already ran, and a second one at the same evidence block', async () => {
    await follower.tick();
    const at = await f.provider.getBlockNumber();
    await blockTransaction(at);
    expect(await afterTick(at)).toBe(0);
    // Finality moved without a block for the stream: one pass, then none at that block again.
    expect(await afterTick(at + 1)).toBe(1);
    expect(await afterTick(at + 1)).toBe(0);
    expect(await afterTick(at + 2)).toBe(1);
  });

  it('credits a deposit whose block becomes final after an empty pass, without a block for the stream', async () => {
    const address = await f.address('late-final');
    // The deposit is recorded pending (its block is not final yet: finality depth 4).
    await f.send('USDT', address, '3');
    await follower.tick();
    const pending = await depositStatus('late-final');
    expect(pending?.status).toBe('pending');
    const block = Number(pending!.block_number);
    // A pass below the deposit's block finds nothing to settle.
    expect(await afterTick(block - 1)).toBe(1);
    expect((await depositStatus('late-final'))?.status).toBe('pending');
    // Finality reaches the deposit's block: the pass runs and credits it.
    expect(await afterTick(block)).toBe(1);
    expect((await depositStatus('late-final'))?.status).toBe('credited');
  });

  it('finishes a sweep mined after an empty pass once its block is final', async () => {
    const at = (await f.provider.getBlockNumber()) + 100;
    expect(await afterTick(at)).toBe(1);
    await f.t.app.fork().execute(
      `insert into sweeps (id, network, status, items, tx_hash, mined_block, outcomes, created_at, updated_at)
         values ('sw_idle_tick', ?, 'mined', 0, ?, ?, '[]'::jsonb, now(), now())`,
      [f.network, `0x${'ab'.repeat(32)}`, at + 1],
    );
    expect(await afterTick(at)).toBe(0);
    expect(await afterTick(at + 1)).toBe(1);
    const [sweep] = await f.t.app
      .fork()
      .execute<{ status: string }[]>(`select status from sweeps where id = 'sw_idle_tick'`);
    expect(sweep?.status).toBe('done');
  });

  it('runs the pass again at the same evidence block after a block with logs or a reorganisation', async () => {
    const at = (await f.provider.getBlockNumber()) + 200;
    expect(await afterTick(at)).toBe(1);
    expect(await afterTick(at)).toBe(0);
    // A block with logs (here none of the stream's: what it records is not looked at) at another height.
    const log = { address: `0x${'9'.repeat(40)}`, topics: [], data: '0x', blockNumber: at + 5 };
    await f.t.app.fork().transactional(async (tx) => {
      const head = header(at + 5);
      await consumer.handle(tx, {
        type: 'block',
        from: at + 5,
        to: head,
        logs: [log] as Body[],
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
});
