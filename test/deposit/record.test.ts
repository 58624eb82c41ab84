import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvmLog } from '../../src/chains/evm/index.ts';
import { depositNetworkOf } from '../../src/modules/deposit/deposit.chain.ts';
import { recordDeposits } from '../../src/modules/deposit/deposit.scan.ts';
import { TRANSFER_TOPIC } from '../../src/modules/deposit/deposit.transfers.ts';
import { planOfStatement, rowsVisited } from '../support/plan.ts';
import { type Body, type DepositFixture, depositEvents, depositFixture } from './support.ts';

/**
 * The scanner's write of a chunk, fed logs directly (the shapes a node may answer with): each transfer
 * to an issued address is one deposit whatever repeats, in which case and how it comes, with an exact
 * credit; a node answer that could corrupt the write is refused whole.
 */

let f: DepositFixture;

beforeAll(async () => {
  f = await depositFixture();
});
afterAll(async () => {
  await f?.close();
});

const FINAL = 1_000_000;
const word = (hex: string) => `0x${hex.replace(/^0x/, '').padStart(64, '0')}`;
const hash = () => `0x${randomBytes(32).toString('hex')}`;

/** A USDT Transfer log to `to` of `amount` base units, in block `block` (final unless above FINAL). */
function transfer(to: string, amount: bigint, block = FINAL, logIndex = 0, tx = hash()): EvmLog {
  return {
    address: f.contracts.tokens.USDT!.address,
    topics: [TRANSFER_TOPIC, word(f.player.address), word(to)],
    data: word(amount.toString(16)),
    blockNumber: block,
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    transactionHash: tx,
    transactionIndex: 0,
    logIndex,
    removed: false,
  };
}

const network = () => depositNetworkOf(f.t.app.services.networks.get(f.network)!)!;
const record = (logs: EvmLog[]) =>
  f.t.app.fork().transactional((tx) => recordDeposits(tx, network(), logs, FINAL));
const depositsOf = (playerId: string) =>
  f.t.app
    .fork()
    .execute<Body[]>(
      `select status, amount_raw::text, credited_raw::text, tx_hash, log_index from deposits where player_id = ? order by log_index`,
      [playerId],
    );
const eventsOf = async (playerId: string) => (await depositEvents(f)).filter((e) => e.player_id === playerId);

describe('recording a chunk of transfers', () => {
  it('a log the node gives twice in one answer is one deposit and one event', async () => {
    const address = await f.address('doubled');
    const log = transfer(address, 3_000_000n);
    expect(await record([log, { ...log }])).toBe(1);
    expect(await depositsOf('doubled')).toMatchObject([{ status: 'credited', credited_raw: '2500000' }]);
    expect(await eventsOf('doubled')).toHaveLength(1);
  });

  it('a log in two overlapping ranges is credited once, the range’s other log too', async () => {
    const address = await f.address('overlap');
    const tx = hash();
    const first = transfer(address, 1_000_000n, FINAL - 1, 0, tx);
    const second = transfer(address, 2_000_000n, FINAL - 1, 1, tx);
    expect(await record([first])).toBe(1);
    expect(await record([first, second])).toBe(1);
    expect(await record([first, second])).toBe(0);
    expect((await depositsOf('overlap')).map((d) => d.credited_raw)).toEqual(['500000', '1500000']);
    expect((await eventsOf('overlap')).map((e) => e.credited).sort()).toEqual(['0.5', '1.5']);
  });

  it('matches an address the node writes in uppercase hex, and stores it lowercase', async () => {
    const address = await f.address('shouting');
    const log = transfer(address, 4_000_000n);
    const upper = (h: string) => `0x${h.slice(2).toUpperCase()}`;
    const loud = {
      ...log,
      topics: log.topics.map(upper),
      transactionHash: upper(log.transactionHash),
      blockHash: upper(log.blockHash),
    };
    expect(await record([loud])).toBe(1);
    expect(await depositsOf('shouting')).toMatchObject([
      { status: 'credited', credited_raw: '3500000', tx_hash: log.transactionHash },
    ]);
    const [event] = await eventsOf('shouting');
    expect(event).toMatchObject({ address, tx_hash: log.transactionHash });
  });

  it('credits an amount beyond 2^53 exactly, and records one at the fee without an event', async () => {
    const address = await f.address('whale');
    const amount = 10n ** 30n + 7n;
    expect(await record([transfer(address, amount, FINAL, 0), transfer(address, 500_000n, FINAL, 1)])).toBe(
      2,
    );
    expect(await depositsOf('whale')).toMatchObject([
      { status: 'credited', amount_raw: amount.toString(), credited_raw: (amount - 500_000n).toString() },
      { status: 'below_fee', amount_raw: '500000', credited_raw: '0' },
    ]);
    expect((await eventsOf('whale')).map((e) => e.amount_raw)).toEqual([(amount - 500_000n).toString()]);
  });

  it('a transfer on a block not final yet is recorded pending, without an event', async () => {
    const address = await f.address('early');
    expect(await record([transfer(address, 2_000_000n, FINAL + 1)])).toBe(1);
    expect(await depositsOf('early')).toMatchObject([{ status: 'pending', credited_raw: '1500000' }]);
    expect(await eventsOf('early')).toEqual([]);
  });

  it('refuses a chunk whose Transfer log carries a comma where a hash belongs: nothing recorded', async () => {
    const address = await f.address('garbled');
    const good = transfer(address, 2_000_000n, FINAL, 0);
    const bad = { ...transfer(address, 3_000_000n, FINAL, 1), blockHash: `${hash()},0x1` };
    await expect(record([good, bad])).rejects.toThrow('malformed node answer');
    expect(await depositsOf('garbled')).toEqual([]);
  });
});

describe('a chunk against many issued addresses', () => {
  it('writes 1 000 deposits among 100 000 issued addresses visiting each row a bounded number of times', async () => {
    // 100 000 issued addresses with current statistics (a busy installation); a chunk of 2 000 transfers,
    // half of them to 1 000 of those addresses, half to addresses nobody issued.
    const em = f.t.app.fork();
    await em.execute(
      `insert into deposit_addresses (merchant_id, network, player_id, wallet, player_key, address, created_at)
       select ?, ?, 'many_' || g, ?, '0x' || lpad(to_hex(g), 64, '0'), '0xcc' || lpad(to_hex(g), 38, '0'), now()
         from generate_series(1, 100000) g`,
      [f.merchant.id, f.network, f.wallet.toLowerCase()],
    );
    await em.execute('analyze');
    const n = 1_000;
    const to = (prefix: string, i: number) => `0x${prefix}${i.toString(16).padStart(38, '0')}`;
    const logs = Array.from({ length: 2 * n }, (_, i) =>
      transfer(i % 2 === 0 ? to('cc', (i / 2 + 1) * 97) : to('dd', i), 2_000_000n, FINAL - (i % 50), i),
    );
    const plan = await planOfStatement(f.t.app.fork(), 'insert into deposits', (tx) =>
      recordDeposits(tx, network(), logs, FINAL),
    );
    // Each deposit's address, ledger row and deposit row are read and written a bounded number of
    // times (a nested loop pairing each deposit with its ledger row visits n² = a million rows).
    expect(rowsVisited(plan)).toBeLessThan(50 * n);
    // And for real, once: every transfer to an issued address is a deposit.
    expect(await record(logs)).toBe(n);
  });
});
