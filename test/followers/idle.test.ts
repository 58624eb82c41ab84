import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumersOf } from '../../daemons/chain-followers.ts';
import { evmSource } from '../../src/followers/evm-source.ts';
import { createFollower, MAX_UNSAVED_BLOCKS } from '../../src/followers/follower.ts';
import { claimFollowing } from '../../src/followers/store.ts';
import { mine, type SessionFixture, sessionFixture } from '../session/support.ts';

/**
 * The cost of running: a follower whose chain did not move writes nothing. Every consumer of the
 * service (sessions, payouts, relays, batches, deposits) runs its ticks; the database's rows are
 * compared by their versions (`xmin` changes on any insert or update, even of equal values).
 */

let f: SessionFixture;
beforeAll(async () => {
  f = await sessionFixture();
});
afterAll(async () => {
  await f?.close();
});

/** Every table's row count and newest row version, in the service's schemas. */
async function fingerprint(): Promise<Record<string, string>> {
  const em = f.t.app.fork();
  const tables = await em.execute<{ name: string }[]>(
    `select format('%I.%I', schemaname, relname) as name from pg_stat_user_tables
      where schemaname in ('public', 'graphile_worker') order by 1`,
  );
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await em.execute<{ n: string; v: string | null }[]>(
      `select count(*)::text as n, max(xmin::text::bigint)::text as v from ${name}`,
    );
    out[name] = `${row!.n}@${row!.v}`;
  }
  return out;
}

describe('an idle follower', () => {
  it('writes nothing on ticks that find the chain as it was', async () => {
    const app = f.t.app;
    const network = app.services.networks.get('eth')!;
    const follower = createFollower({
      network,
      source: evmSource(app.services.chainClients.evm(network), network),
      consumers: consumersOf(app, network, { sessionStartBlock: f.startBlock }),
      fork: () => app.fork(),
      fence: async () => {},
      logger: app.logger,
    });
    await claimFollowing(app.fork(), 'eth', 'idle-test');
    await mine(f, 3);
    // Catch up first: the streams' first ticks record their cursors and the window.
    for (let i = 0; i < 3; i++) await follower.tick();
    const before = await fingerprint();
    for (let i = 0; i < 5; i++) expect((await follower.tick()).caughtUp).toBe(true);
    expect(await fingerprint()).toEqual(before);
    // New blocks are work again: empty ones recorded at the latest at the lag bound (lazy-cursor.test.ts).
    await mine(f, MAX_UNSAVED_BLOCKS);
    await follower.tick();
    expect(await fingerprint()).not.toEqual(before);
  });
});
