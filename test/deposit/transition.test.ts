import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '../../src/db/orm.ts';
import { depositNetworkOf } from '../../src/modules/deposit/deposit.chain.ts';
import {
  announceSettled,
  type DepositSnapshot,
  settledColumns,
  settleFinalDeposits,
} from '../../src/modules/deposit/deposit.transition.ts';
import { type Body, type DepositFixture, depositEvents, depositFixture, depositFollower } from './support.ts';

/**
 * Crediting decided from chain data is never dropped: a deposit whose row moved on between the
 * crediting pass's read and its write (made deterministic here) is decided again from a fresh, locked
 * read in the same transaction, and credited once.
 */

let f: DepositFixture;

beforeAll(async () => {
  f = await depositFixture();
});
afterAll(async () => {
  await f?.close();
});

const depositsOf = (playerId: string) =>
  f.t.app.fork().execute<Body[]>(`select id, status, version from deposits where player_id = ?`, [playerId]);

describe('deposit transitions', () => {
  it('credits a deposit that lost its version race from a fresh read, once', async () => {
    const address = await f.address('race');
    await f.send('USDT', address, '3');
    await depositFollower(f).tick(); // recorded pending, not final yet
    const [pending] = await depositsOf('race');
    expect(pending).toMatchObject({ status: 'pending' });

    let reads = 0;
    /** The EntityManager of the crediting transaction, with another writer between its first read and write. */
    const racing = (tx: EntityManager) =>
      new Proxy(tx, {
        get(target, prop, receiver) {
          if (prop !== 'execute') {
            const value = Reflect.get(target, prop, receiver);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return async (sql: string, params?: unknown[]) => {
            const result = await target.execute(sql, params);
            if (/^\s*select d\.id, d\.version/.test(sql) && reads++ === 0)
              await f.t.app
                .fork()
                .execute(`update deposits set version = version + 1 where id = ?`, [pending.id]);
            return result;
          };
        },
      });
    const network = depositNetworkOf(f.t.app.services.networks.get(f.network)!)!;
    const head = await f.provider.getBlockNumber();
    const credited = await f.t.app
      .fork()
      .transactional((tx) => settleFinalDeposits(racing(tx), network, head));
    expect(reads).toBe(2);
    expect(credited).toBe(1);
    expect(await depositsOf('race')).toMatchObject([{ status: 'credited', version: 2 }]);
    expect((await depositEvents(f)).filter((e) => e.player_id === 'race')).toHaveLength(1);
  });

  it('a deposit inserted settled must have been pending: any other move is refused, nothing announced', async () => {
    const network = depositNetworkOf(f.t.app.services.networks.get(f.network)!)!;
    const deposit: DepositSnapshot = {
      id: 'dep_settledtwice000000000',
      version: 1,
      status: 'credited',
      merchant_id: f.merchant.id,
      player_id: 'twice',
      address: '0x0000000000000000000000000000000000000001',
      token: 'USDT',
      decimals: 6,
      amount_raw: '1000000',
      fee_raw: '500000',
      credited_raw: '500000',
      tx_hash: `0x${'11'.repeat(32)}`,
      block_number: '1',
      log_index: 0,
    };
    const change = { kind: 'credited' as const, deposit, network, at: new Date() };
    await expect(f.t.app.fork().transactional((tx) => announceSettled(tx, [change]))).rejects.toThrow(
      'credited cannot move credited to credited',
    );
    expect((await depositEvents(f)).filter((e) => e.player_id === 'twice')).toEqual([]);
    // From pending: the row it is written as is one version on, credited at the change's time.
    const pending = { ...change, deposit: { ...deposit, version: 0, status: 'pending' as const } };
    expect(settledColumns(pending)).toEqual({
      status: 'credited',
      version: 1,
      credited_at: pending.at.toISOString(),
    });
  });
});
