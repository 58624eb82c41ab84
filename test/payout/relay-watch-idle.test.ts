import { Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EntityManager } from '../../src/db/orm.ts';
import { watchEvm } from '../../src/relay/evm-watch.ts';
import type { Relayer } from '../../src/relay/relayer.ts';
import { type PayoutFixture, payoutFixture, signOrder } from './support.ts';

/**
 * The relay watcher's tick on a network without a request waiting for a nonce costs one read, not the
 * UPDATE that requeues stale requests as well; a request whose sender's claim ran out after such a tick
 * is still given a job again by the next one.
 */

let f: PayoutFixture;
beforeAll(async () => {
  f = await payoutFixture({ confirmations: [{ blocks: 1 }] });
  await f.approve('USDT');
});
afterAll(() => f?.close());

/** The fenced relayer a follower hands its watcher, counting the stale-request UPDATEs it runs. */
function counting() {
  const relayer = f.t.app.services.relayer;
  const seen = { kicks: 0 };
  const fork = () => {
    const em = relayer.deps.fork();
    const execute = em.execute.bind(em) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(em, {
      execute: (...args: unknown[]) => {
        if (String(args[0]).includes('update relay_requests set claimed_until = null')) seen.kicks++;
        return execute(...args);
      },
    });
    return em;
  };
  const commit = <T>(work: (tx: EntityManager) => Promise<T>) => f.t.app.fork().transactional(work);
  const watcher = Object.create(relayer.fencedBy(commit), {
    deps: { value: { ...relayer.deps, fork } },
  }) as Relayer;
  return { watcher, seen };
}

const jobs = (key: string) =>
  f.t.app
    .fork()
    .execute<{ n: number }[]>('select count(*)::int as n from graphile_worker.jobs where key = ?', [key]);

it('skips the stale-request UPDATE without a queued request, and requeues one whose claim ran out', async () => {
  const network = f.t.app.services.relayer.network('eth');
  const idle = counting();
  await watchEvm(idle.watcher, network);
  expect(idle.seen.kicks).toBe(0);

  // A payout's relay, claimed by a sender that died holding it, its job gone with it.
  const { body } = await f.call('/v1/payouts', {
    network: 'eth',
    token: 'USDT',
    amount: '1',
    recipient: Wallet.createRandom().address,
  });
  const signature = await signOrder(f.payer, body.typed_data);
  await f.call('/v1/payouts/authorize', { payout: body.payout, signature });
  const [relay] = await f.t.app
    .fork()
    .execute<{ id: string }[]>('select id from relay_requests where subject_id = ?', [body.payout]);
  const key = `relay_request:${relay!.id}`;
  await f.t.app
    .fork()
    .execute(
      `update relay_requests set claimed_until = now() - interval '1 second', claimed_by = 999999 where id = ?`,
      [relay!.id],
    );
  await f.t.app.fork().execute('select graphile_worker.remove_job(?)', [key]);
  expect((await jobs(key))[0]?.n).toBe(0);

  const next = counting();
  await watchEvm(next.watcher, network);
  expect(next.seen.kicks).toBe(1);
  expect((await jobs(key))[0]?.n).toBe(1);
  const [row] = await f.t.app
    .fork()
    .execute<{ claimed_by: number | null }[]>('select claimed_by from relay_requests where id = ?', [
      relay!.id,
    ]);
  expect(row?.claimed_by).toBeNull();
});
