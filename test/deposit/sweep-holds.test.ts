import type { Contract, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { MAX_SWEEP_ITEMS } from '../../src/modules/deposit/sweep.ts';
import { SWEEP_PARK_AFTER, sweepBackoffMs } from '../../src/modules/deposit/sweep-hold.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { until } from '../payout/support.ts';
import { ethWallet } from '../session/support.ts';
import { type Body, type DepositFixture, depositFixture } from './support.ts';

/**
 * Sweeps that cannot succeed stop being retried: a forwarder the token refuses backs off, is parked
 * with its reason after SWEEP_PARK_AFTER failures (operators see it and can retry it), never keeps
 * healthy forwarders out of the sweeps however many fail, and a forwarder the merchant emptied with
 * the factory's own `sweep()` is recognised and its deposits marked swept outside the service. The
 * sweeper's clock is the test's (`skew` moves it forward); the chain and the relayer run for real.
 */

let f: DepositFixture;
let worker: Worker | undefined;
let mining: Promise<void> | undefined;
let stopped = false;
let skew = 0;
let merchantWallet: Wallet;
let usdt: Contract;

beforeAll(async () => {
  f = await depositFixture();
  // A settlement wallet with a key, so the merchant can sweep its own forwarders.
  merchantWallet = await ethWallet(f.provider);
  await f.t.app.services.merchants.setSettlementWallet(
    f.t.app.fork(),
    f.merchant.id,
    'eth',
    merchantWallet.address,
  );
  usdt = contractAt('TetherToken', f.contracts.tokens.USDT!.address, f.deployer);
});
afterAll(async () => {
  stopped = true;
  await mining;
  await worker?.stop();
  await f?.close();
});

async function start() {
  if (worker) return;
  worker = await startWorker(f.t.app, {
    followers: {
      depositStartBlock: f.startBlock,
      standbyRetryMs: 100,
      sweepIntervalMs: 0,
      now: () => new Date(Date.now() + skew),
    },
  });
  // Blocks keep coming, one batch at a time: a loaded machine never gets a backlog of mining calls.
  mining = (async () => {
    while (!stopped) {
      await f.provider.send('anvil_mine', ['0x8']).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
}

const depositsOf = (playerId: string) =>
  f.t.app
    .fork()
    .execute<Body[]>(`select sweep_id, swept_at, swept_by from deposits where player_id = ? order by id`, [
      playerId,
    ]);
const swept = (rows: Body[]) => rows.length > 0 && rows.every((r) => r.swept_at !== null);
/** Final sweeps whose outcome for `address` was a failure: the attempts it cost. */
const failedAttempts = async (address: string) => {
  const [row] = await f.t.app.fork().execute<{ n: number }[]>(
    `select count(*)::int as n from sweeps s, jsonb_to_recordset(s.outcomes) as o(address text, error text)
      where s.status = 'done' and o.address = ? and o.error is not null`,
    [address.toLowerCase()],
  );
  return row!.n;
};
const holdOf = async (address: string) => {
  const [row] = await f.t.app.fork().execute<Body[]>(
    `select h.failures, h.last_error, h.retry_at, h.parked_at, h.updated_at from sweep_holds h
       join deposit_addresses a on a.id = h.address_id where a.address = ?`,
    [address.toLowerCase()],
  );
  return row;
};
const blacklist = async (address: string) =>
  void (await (await usdt.getFunction('addBlackList')(address)).wait());

describe('sweeps that cannot succeed', () => {
  it('a forwarder the merchant emptied with its own sweep() is marked swept outside, not retried', async () => {
    const own = await f.address('own-sweep');
    await f.send('USDT', own, '5');
    const [{ player_key: key }] = await f.t.app
      .fork()
      .execute<Body[]>(`select player_key from deposit_addresses where address = ?`, [own.toLowerCase()]);
    const factory = contractAt('ForwarderFactory', f.contracts.forwarderFactory, merchantWallet);
    await (
      await factory.getFunction('sweep')(merchantWallet.address, key, f.contracts.tokens.USDT!.address)
    ).wait();
    expect(await f.balance('USDT', own)).toBe(0n);
    await start();
    const rows = await until(() => depositsOf('own-sweep'), swept, 40_000);
    expect(rows).toMatchObject([{ swept_by: 'outside' }]);
    expect(await failedAttempts(own)).toBe(1);
    expect(await holdOf(own)).toBeUndefined();
    // A later sweep carries another forwarder, and not this one again.
    const next = await f.address('after-own-sweep');
    await f.send('USDT', next, '2');
    expect(await until(() => depositsOf('after-own-sweep'), swept, 40_000)).toMatchObject([
      { swept_by: 'service' },
    ]);
    expect(await failedAttempts(own)).toBe(1);
  }, 120_000);

  it('a refused forwarder backs off, is parked with its reason, and is swept after an operator retries it', async () => {
    await start();
    const refused = await f.address('refused');
    await f.send('USDT', refused, '3');
    await blacklist(refused);
    let hold = await until(
      () => holdOf(refused),
      (h) => h?.failures === 1,
      40_000,
    );
    expect(hold).toMatchObject({
      failures: 1,
      parked_at: null,
      last_error: expect.stringMatching(/^Blacklisted\(/),
    });
    expect(new Date(hold.retry_at).getTime() - new Date(hold.updated_at).getTime()).toBe(sweepBackoffMs(1));
    // While it waits, other forwarders are swept and it is not sent again.
    const healthy = await f.address('healthy-1');
    await f.send('USDC', healthy, '2');
    await until(() => depositsOf('healthy-1'), swept, 40_000);
    expect(await failedAttempts(refused)).toBe(1);
    expect((await holdOf(refused)).failures).toBe(1);
    for (let failures = 2; failures <= SWEEP_PARK_AFTER; failures++) {
      skew += sweepBackoffMs(failures - 1);
      hold = await until(
        () => holdOf(refused),
        (h) => h?.failures === failures,
        40_000,
      );
      expect(hold.failures).toBe(failures);
      expect(await failedAttempts(refused)).toBe(failures);
      if (failures < SWEEP_PARK_AFTER)
        expect(new Date(hold.retry_at).getTime() - new Date(hold.updated_at).getTime()).toBe(
          sweepBackoffMs(failures),
        );
    }
    expect(hold).toMatchObject({ retry_at: null, parked_at: expect.anything() });
    // Parked: however much time passes, sweeps go on without it.
    skew += 24 * 3_600_000;
    const later = await f.address('healthy-2');
    await f.send('USDC', later, '2');
    await until(() => depositsOf('healthy-2'), swept, 40_000);
    expect(await failedAttempts(refused)).toBe(SWEEP_PARK_AFTER);
    expect(await depositsOf('refused')).toMatchObject([{ sweep_id: null, swept_at: null }]);

    const token = await f.t.operatorToken();
    const listed = await f.t.graphql(
      token,
      `{ sweepHolds(network: "eth", parked: true) { address token attempts reason parked nextAttemptAt deposits credited } }`,
    );
    expect(listed.errors).toBeUndefined();
    expect((listed.data as Body).sweepHolds).toEqual([
      {
        address: refused,
        token: 'USDT',
        attempts: SWEEP_PARK_AFTER,
        reason: expect.stringMatching(/^Blacklisted\(/),
        parked: true,
        nextAttemptAt: null,
        deposits: 1,
        credited: '2.5',
      },
    ]);
    await (await usdt.getFunction('removeBlackList')(refused)).wait();
    const retried = await f.t.graphql(
      token,
      `mutation { sweepRetry(network: "eth", address: "${refused}", token: "USDT") { attempts parked nextAttemptAt } }`,
    );
    expect(retried.errors).toBeUndefined();
    expect((retried.data as Body).sweepRetry).toEqual({ attempts: 0, parked: false, nextAttemptAt: null });
    expect(await until(() => depositsOf('refused'), swept, 40_000)).toMatchObject([{ swept_by: 'service' }]);
    expect(await f.balance('USDT', refused)).toBe(0n);
    expect(await holdOf(refused)).toBeUndefined();
  }, 240_000);

  it('more failing forwarders than a sweep carries never keep a healthy one out', async () => {
    await start();
    const failing: string[] = [];
    for (let i = 0; i <= MAX_SWEEP_ITEMS; i++) {
      const address = await f.address(`blocked-${i}`);
      await f.send('USDT', address, '1');
      await blacklist(address);
      failing.push(address);
    }
    const healthy = await f.address('healthy-after-blocked');
    await f.send('USDT', healthy, '1');
    expect(await until(() => depositsOf('healthy-after-blocked'), swept, 60_000)).toMatchObject([
      { swept_by: 'service' },
    ]);
    const holds = await Promise.all(failing.map(holdOf));
    expect(holds.filter((h) => h?.failures >= 1).length).toBeGreaterThanOrEqual(MAX_SWEEP_ITEMS);
  }, 180_000);
});
