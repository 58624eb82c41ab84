import pg from 'pg';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Leadership, LeadershipLost } from '../../src/followers/leadership.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** Leadership of networks: one lock connection per process, fencing inside transactions. */

let t: TestApp;
const all: Leadership[] = [];
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  for (const l of all) await l.close();
  await t?.close();
});

const leadership = () => {
  const l = new Leadership({ databaseUrl: t.config.databaseUrl!, logger: t.app.logger });
  all.push(l);
  return l;
};
const fence = (l: Leadership, network: string) => t.app.fork().transactional((tx) => l.fence(tx, network));

it('several networks taken at once by one process hold on its one connection, and fence', async () => {
  const a = leadership();
  expect(await Promise.all(['n1', 'n2', 'n3'].map((n) => a.tryLead(n)))).toEqual([true, true, true]);
  for (const n of ['n1', 'n2', 'n3']) await fence(a, n);
  const locks = await t.app.fork().execute<{ pids: number }[]>(
    // This database's locks only: other test files' workers hold theirs in the same cluster.
    `select count(distinct pid)::int as pids from pg_locks where locktype = 'advisory' and granted
          and database = (select oid from pg_database where datname = current_database())`,
  );
  expect(locks[0]!.pids).toBe(1);
});

it('sends one query at a time on its lock connection, however many networks try at once', async () => {
  // pg 8 queues a query sent while another runs (with a deprecation warning); pg 9 refuses it.
  const inFlight = new Map<pg.Client, number>();
  let most = 0;
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args) {
    const now = (inFlight.get(this) ?? 0) + 1;
    inFlight.set(this, now);
    most = Math.max(most, now);
    const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result as never;
  });
  try {
    const a = leadership();
    const networks = Array.from({ length: 8 }, (_, i) => `q${i}`);
    expect(await Promise.all(networks.map((n) => a.tryLead(n)))).toEqual(networks.map(() => true));
    await Promise.all(networks.slice(0, 4).map((n) => a.resign(n)));
    expect(await Promise.all(networks.map((n) => a.tryLead(n)))).toEqual(networks.map(() => true));
  } finally {
    spy.mockRestore();
  }
  expect(most).toBe(1);
});

it('a second process stands by; when the first resigns or its connection drops, it leads and the first is fenced', async () => {
  const first = leadership();
  const second = leadership();
  expect(await first.tryLead('x')).toBe(true);
  expect(await second.tryLead('x')).toBe(false);
  await expect(fence(second, 'x')).rejects.toBeInstanceOf(LeadershipLost);

  await first.resign('x');
  expect(await second.tryLead('x')).toBe(true);
  await fence(second, 'x');

  // The leader's lock connection is cut (as when its process is killed): the standby takes over.
  await t.app.fork().execute(
    `select pg_terminate_backend(l.pid) from pg_locks l where l.locktype = 'advisory' and l.granted
          and l.pid <> pg_backend_pid() and l.database = (select oid from pg_database where datname = current_database())`,
  );
  for (let i = 0; i < 100 && !(await first.tryLead('x').catch(() => false)); i++)
    await new Promise((r) => setTimeout(r, 20));
  expect(first.leading.has('x')).toBe(true);
  await fence(first, 'x');
  await expect(fence(second, 'x')).rejects.toBeInstanceOf(LeadershipLost);
});
