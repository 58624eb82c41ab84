import { afterAll, beforeAll, expect, it } from 'vitest';
import { evmToTron } from '../../src/chains/tron/address.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { until } from '../payout/support.ts';
import { type Body, type DepositFixture, depositEvents, depositFixture } from './support.ts';

/**
 * A standing address on `tron` through the facade: credited at the solidified block, and swept although
 * the chain's USDT returns `false` from `transfer` (as on Tron mainnet), to the forwarder address the
 * endpoint returned in its T… form.
 */

let f: DepositFixture;
let worker: Worker;
let miner: ReturnType<typeof setInterval>;

beforeAll(async () => {
  f = await depositFixture({ kind: 'tron' });
  worker = await startWorker(f.t.app, {
    followers: { depositStartBlock: f.startBlock, standbyRetryMs: 100, sweepIntervalMs: 0 },
  });
  miner = setInterval(() => void f.provider.send('anvil_mine', ['0x1']).catch(() => {}), 150);
});
afterAll(async () => {
  clearInterval(miner);
  await worker?.stop();
  await f?.close();
});

it('credits a USDT deposit at the solidified block and sweeps it despite transfer returning false', async () => {
  const { body } = await f.call('/v1/wallet/address', { player_id: 'tron-player', network: 'tron' });
  expect(body.address).toMatch(/^T/);
  const address = await f.address('tron-player');
  expect(evmToTron(address)).toBe(body.address);
  const hash = await f.send('USDT', address, '12');
  const events = await until(
    async () => (await depositEvents(f)).filter((e: Body) => e.player_id === 'tron-player'),
    (e) => e.length > 0,
    30_000,
  );
  expect(events).toEqual([
    expect.objectContaining({
      event: 'deposit.confirmed',
      network: 'tron',
      address: body.address,
      token: 'USDT',
      amount: '12',
      credited: '11.5',
      fee: '0.5',
      amount_raw: '11500000',
      tx_hash: hash.toLowerCase(),
    }),
  ]);
  const [sweep] = await until(
    () => f.t.app.fork().execute<Body[]>(`select status, tx_hash, outcomes from sweeps`),
    (s) => s.length > 0 && s[0].status === 'done',
    40_000,
  );
  // The sweep's events as the facade served them (its transaction id is Tron's, not the anvil hash).
  expect(sweep.outcomes).toEqual([
    {
      address: address.toLowerCase(),
      token: f.contracts.tokens.USDT!.address.toLowerCase(),
      amountRaw: '11500000',
      feeRaw: '500000',
    },
  ]);
  // The clone is deployed exactly at the address the endpoint returned.
  expect(await f.provider.getCode(address)).not.toBe('0x');
  expect(await f.balance('USDT', f.wallet)).toBe(11_500_000n);
  expect(await f.balance('USDT', f.feeWallet)).toBe(500_000n);
  expect(await f.balance('USDT', address)).toBe(0n);
});
