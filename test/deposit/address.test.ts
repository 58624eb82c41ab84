import { getAddress, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { isTronAddress, toEvmAddress } from '../../src/chains/tron/address.ts';
import { playerKey } from '../../src/modules/deposit/deposit.address.ts';
import { type DepositFixture, depositFixture } from './support.ts';

/** POST /v1/wallet/address on an EVM network and on tron (the facade), computed by the service. */

let eth: DepositFixture;
let tron: DepositFixture;

beforeAll(async () => {
  [eth, tron] = await Promise.all([depositFixture(), depositFixture({ kind: 'tron' })]);
});
afterAll(async () => {
  await eth?.close();
  await tron?.close();
});

const predicted = (f: DepositFixture, wallet: string, playerId: string) =>
  contractAt('ForwarderFactory', f.contracts.forwarderFactory, f.provider).getFunction('predict')(
    wallet,
    playerKey(f.merchant.id, playerId),
  ) as Promise<string>;

describe('POST /v1/wallet/address', () => {
  it('returns the forwarder address of (settlement wallet, player) on EVM: checksummed, stable, the factory’s', async () => {
    const first = await eth.call('/v1/wallet/address', { player_id: 'player-1', network: 'eth' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      player_id: 'player-1',
      network: 'eth',
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      tokens: ['USDT', 'USDC', 'DAI'],
    });
    expect(getAddress(first.body.address)).toBe(first.body.address);
    expect(first.body.address).toBe(await predicted(eth, eth.wallet, 'player-1'));
    const again = await eth.call('/v1/wallet/address', { player_id: 'player-1', network: 'eth' });
    expect(again.body).toEqual(first.body);
    const other = await eth.call('/v1/wallet/address', { player_id: 'player-2', network: 'eth' });
    expect(other.body.address).not.toBe(first.body.address);
  });

  it('on tron returns the T… form (base58check) of the address the dev chain’s factory deploys to', async () => {
    const { status, body } = await tron.call('/v1/wallet/address', {
      player_id: 'player-1',
      network: 'tron',
    });
    expect(status).toBe(200);
    expect(isTronAddress(body.address)).toBe(true);
    expect(body.address).toMatch(/^T/);
    expect(toEvmAddress(body.address)).toBe(await predicted(tron, tron.wallet, 'player-1'));
    expect((await tron.call('/v1/wallet/address', { player_id: 'player-1', network: 'tron' })).body).toEqual(
      body,
    );
  });

  it('five concurrent first calls store one row and answer one address', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => eth.call('/v1/wallet/address', { player_id: 'racer', network: 'eth' })),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.address)).size).toBe(1);
    const rows = await eth.t.app
      .fork()
      .execute(`select * from deposit_addresses where player_id = 'racer' and merchant_id = ?`, [
        eth.merchant.id,
      ]);
    expect(rows).toHaveLength(1);
  });

  it('a settlement-wallet change gives a new address bound to the new wallet; the old one stays watched', async () => {
    const before = await eth.call('/v1/wallet/address', { player_id: 'mover', network: 'eth' });
    const next = Wallet.createRandom().address;
    await eth.t.app.services.merchants.setSettlementWallet(eth.t.app.fork(), eth.merchant.id, 'eth', next);
    try {
      const after = await eth.call('/v1/wallet/address', { player_id: 'mover', network: 'eth' });
      expect(after.body.address).not.toBe(before.body.address);
      expect(after.body.address).toBe(await predicted(eth, next, 'mover'));
      const rows = await eth.t.app
        .fork()
        .execute<{ address: string; wallet: string }[]>(
          `select address, wallet from deposit_addresses where player_id = 'mover' order by id`,
        );
      expect(rows).toEqual([
        { address: before.body.address.toLowerCase(), wallet: eth.wallet.toLowerCase() },
        { address: after.body.address.toLowerCase(), wallet: next.toLowerCase() },
      ]);
    } finally {
      await eth.t.app.services.merchants.setSettlementWallet(
        eth.t.app.fork(),
        eth.merchant.id,
        'eth',
        eth.wallet,
      );
    }
  });

  it('two merchants’ players with the same player_id get different addresses', async () => {
    const other = await eth.t.merchant('Another merchant');
    await eth.t.app.services.merchants.setSettlementWallet(eth.t.app.fork(), other.id, 'eth', eth.wallet);
    const res = await eth.t.signed(other, 'POST', '/v1/wallet/address', {
      player_id: 'player-1',
      network: 'eth',
    });
    const mine = await eth.call('/v1/wallet/address', { player_id: 'player-1', network: 'eth' });
    expect(((await res.json()) as { address: string }).address).not.toBe(mine.body.address);
  });

  it.each([
    [{ network: 'eth' }, 400, 'validation', /player_id/],
    [{ player_id: 'p', network: '' }, 400, 'validation', /network/],
    [{ player_id: 'has space', network: 'eth' }, 400, 'validation', /player_id/],
    [{ player_id: 'x'.repeat(129), network: 'eth' }, 400, 'validation', /player_id/],
    [{ player_id: 'p' }, 400, 'validation', /network/],
    [{ player_id: 'p', network: 'nope' }, 400, 'unsupported', /unknown network/],
    [{ player_id: 'p', network: 'bare' }, 400, 'unsupported', /no standing deposit addresses/],
  ])('refuses %j with %i %s', async (body, status, code, message) => {
    const res = await eth.call('/v1/wallet/address', body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toMatch(message);
  });

  it('without a settlement wallet on the network: 400 unsupported (D15)', async () => {
    const bare = await tron.t.merchant('No tron wallet');
    const res = await tron.t.signed(bare, 'POST', '/v1/wallet/address', { player_id: 'p', network: 'tron' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported');
  });
});
