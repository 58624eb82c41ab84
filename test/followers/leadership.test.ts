import { afterAll, beforeAll, expect, it } from 'vitest';
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
