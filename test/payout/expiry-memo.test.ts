import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NetworkConfig } from '../../src/chains/networks.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import type { TickContext } from '../../src/followers/types.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { PayoutChains } from '../../src/modules/payout/payout.chain.ts';
import {
  type ExpireMemo,
  expirePayouts,
  forgetQuiet,
  QUIET_REFRESH_MS,
} from '../../src/modules/payout/payout.expire.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * The expiry pass after a tick costs nothing while the evidence block stands still and the last pass
 * at it found nothing; a pass that found payouts runs again at the same block (its chain reads are
 * retried), and a new evidence block always gets a pass.
 */

let t: TestApp;
let merchantId: string;
beforeAll(async () => {
  t = await startTestApp();
  merchantId = (await t.merchant()).id;
});
afterAll(() => t?.close());

const network = { id: 'eth', kind: 'evm' } as NetworkConfig;
const on = (id: string) => ({ id, kind: 'evm' }) as NetworkConfig;
const block = (number: number) => ({
  number,
  hash: `0x${number}`,
  parentHash: '0x0',
  timestamp: 1_000 + number,
});

/** An open payout of `networkId` (nonce 7, read as used; its log cannot be read: left open). */
async function insertPayout(id: string, networkId: string, deadline: number, conflictBlock: number | null) {
  await t.app.fork().execute(
    `insert into payouts (id, merchant_id, network, token, token_address, amount, amount_raw, recipient,
       recipient_hex, payer, router, chain_id, nonce, deadline, conflict_block, status, created_at, updated_at)
     values (?, ?, ?, 'USDT', ?, '1', 1000000, ?, ?, ?, ?, 1, 7, ?, ?, 'authorized', now(), now())`,
    [
      id,
      merchantId,
      networkId,
      `0x${'1'.repeat(40)}`,
      `0x${'2'.repeat(40)}`,
      `0x${'2'.repeat(40)}`,
      `0x${'3'.repeat(40)}`,
      `0x${'4'.repeat(40)}`,
      deadline,
      conflictBlock,
    ],
  );
}

/** The transactions and reads of one pass at `evidence` on `net`. */
async function pass(net: NetworkConfig, evidence: number, memo: ExpireMemo): Promise<number> {
  const ctx = tick(evidence);
  await expirePayouts(deps, net, ctx, { batch: false }, memo);
  return ctx.transactions + ctx.reads;
}

/** A tick context at `evidence`, counting the transactions and reads the pass opens. */
function tick(evidence: number) {
  const ctx = {
    head: block(evidence),
    finalized: evidence,
    cursor: block(evidence),
    transactions: 0,
    reads: 0,
    evidence: async () => block(evidence),
    transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
      ctx.transactions++;
      return t.app.fork().transactional(work);
    },
    read<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
      ctx.reads++;
      return work(t.app.fork());
    },
  };
  return ctx satisfies TickContext;
}

// The stranded payout's nonce reads as used and its log cannot be read: the pass leaves it open.
const reads = { nonceUsed: 0 };
const chains = {
  nonceUsed: async () => {
    reads.nonceUsed++;
    return true;
  },
  logsSince: async () => {
    throw new Error('node unavailable');
  },
} as unknown as PayoutChains;
const deps = { chains, logger: createLogger('error') };

describe('the expiry pass after a tick', () => {
  it('is skipped at an evidence block where it found nothing, and runs at the next one once told to look', async () => {
    const memo: ExpireMemo = {};
    const first = tick(100);
    await expirePayouts(deps, network, first, { batch: false }, memo);
    expect(first.transactions + first.reads).toBe(2); // the pass, and the quiet horizon it leaves
    const again = tick(100);
    await expirePayouts(deps, network, again, { batch: false }, memo);
    expect(again.transactions + again.reads).toBe(0);
    forgetQuiet(memo); // else the next block is inside the quiet horizon (tests below)
    const next = tick(101);
    await expirePayouts(deps, network, next, { batch: false }, memo);
    expect(next.transactions + next.reads).toBe(2);
  });

  it('runs again at the same evidence block when it found payouts to settle', async () => {
    await t.app.fork().execute(
      `insert into payouts (id, merchant_id, network, token, token_address, amount, amount_raw, recipient,
         recipient_hex, payer, router, chain_id, nonce, deadline, status, created_at, updated_at)
       values ('po_expiry_memo', ?, 'eth', 'USDT', ?, '1', 1000000, ?, ?, ?, ?, 1, 7, 1000, 'authorized', now(), now())`,
      [
        merchantId,
        `0x${'1'.repeat(40)}`,
        `0x${'2'.repeat(40)}`,
        `0x${'2'.repeat(40)}`,
        `0x${'3'.repeat(40)}`,
        `0x${'4'.repeat(40)}`,
      ],
    );
    const memo: ExpireMemo = {};
    for (let i = 0; i < 2; i++) {
      const ctx = tick(200);
      await expirePayouts(deps, network, ctx, { batch: false }, memo);
      expect(ctx.transactions + ctx.reads).toBe(1);
    }
    expect(reads.nonceUsed).toBe(2);
  });

  it('is skipped while the evidence block moves before the earliest deadline of the open payouts', async () => {
    const net = on('quiet-deadline');
    await insertPayout('po_quiet_deadline', net.id, 1_105, null);
    const memo: ExpireMemo = {};
    expect(await pass(net, 100, memo)).toBe(2); // the pass, and the horizon it leaves
    // Blocks 101..105 are not past the deadline (1 105): no read (a query each before).
    for (const at of [101, 103, 105]) expect(await pass(net, at, memo)).toBe(0);
    const before = reads.nonceUsed;
    expect(await pass(net, 106, memo)).toBe(1);
    expect(reads.nonceUsed).toBe(before + 1);
  });

  it('is skipped until the lowest conflict block is final', async () => {
    const net = on('quiet-conflict');
    await insertPayout('po_quiet_conflict', net.id, 99_999, 150);
    const memo: ExpireMemo = {};
    expect(await pass(net, 100, memo)).toBe(2);
    expect(await pass(net, 149, memo)).toBe(0);
    const before = reads.nonceUsed;
    expect(await pass(net, 150, memo)).toBe(1);
    expect(reads.nonceUsed).toBe(before + 1);
  });

  it("looks again after the stream's logs, past a new payout's earliest deadline, and after a while", async () => {
    const net = on('quiet-empty');
    const memo: ExpireMemo = {};
    expect(await pass(net, 100, memo)).toBe(2);
    expect(await pass(net, 101, memo)).toBe(0);
    forgetQuiet(memo); // what a block with logs or a reorganisation does
    expect(await pass(net, 102, memo)).toBe(2);
    // A payout created since has a deadline at least half an order's lifetime past the pass's chain time.
    expect(await pass(net, 102 + 900, memo)).toBe(0);
    expect(await pass(net, 102 + 901, memo)).toBe(2);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + QUIET_REFRESH_MS + 1_000 });
    try {
      expect(await pass(net, 1_004, memo)).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
