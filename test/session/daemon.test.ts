import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { addJob } from '../../src/db/jobs.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { PRUNE_NONCES_JOB } from '../../src/modules/auth/auth.tasks.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { mine, type SessionFixture, sendWalletAction, sessionFixture, webhooksOf } from './support.ts';

/**
 * The chain followers as they run in worker processes: every network led by exactly one of them,
 * sessions settled end to end, and graphile-worker's job slots left to the jobs.
 */

let f: SessionFixture;
const workers: Worker[] = [];
const apps: Awaited<ReturnType<typeof createApp>>[] = [];
beforeAll(async () => {
  f = await sessionFixture({ players: 1 });
});
afterAll(async () => {
  for (const w of workers) await w.stop().catch(() => {});
  for (const a of apps) await a.close().catch(() => {});
  await f?.close();
});

/** A worker with its own app (its own pools and lock connection), as a separate process would have. */
async function worker(concurrency = 1): Promise<Worker> {
  const app = await createApp({
    config: { ...f.t.config, workerConcurrency: concurrency },
    networks: f.networks,
    logger: createLogger('error'),
  });
  apps.push(app);
  const w = await startWorker(app, {
    followers: { sessionStartBlock: f.startBlock, standbyRetryMs: 200 },
  });
  workers.push(w);
  return w;
}

const leaders = async () =>
  f.t.app.fork().execute<{ owner: string }[]>(`select owner from chain_followers where network = 'eth'`);

it('two workers: one leads the network, a deposit settles end to end, the other stands by', async () => {
  const a = await worker();
  const b = await worker();
  for (let i = 0; i < 50 && (await leaders()).length === 0; i++) await sleep(100);
  await sleep(500);
  const leading = [a, b].filter((w) => w.followers?.leadership.leading.has('eth'));
  expect(leading).toHaveLength(1);

  const player = f.players[0]!;
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount: '7',
    callback_url: 'http://127.0.0.1:9/hook',
  });
  const session = init.body.session;
  let body = (
    await f.call('/v1/cashier/step', { session, action: 'wallet_connected', value: player.address })
  ).body;
  const approval = await sendWalletAction(player, body.wallet_action);
  body = (await f.call('/v1/cashier/step', { session, action: 'approval_submitted', value: approval })).body;
  const tx = await sendWalletAction(player, body.wallet_action);
  await f.call('/v1/cashier/step', { session, action: 'signature_submitted', value: tx });

  for (let i = 0; i < 100; i++) {
    if ((await f.call('/v1/cashier/status', { session })).body.status === 'completed') break;
    await mine(f, 1);
    await sleep(100);
  }
  expect((await f.call('/v1/cashier/status', { session })).body).toMatchObject({ step: 'completed' });
  expect(await webhooksOf(f, session)).toHaveLength(1);
  // Still exactly one leader, and the same one.
  expect([a, b].filter((w) => w.followers?.leadership.leading.has('eth'))).toHaveLength(1);

  // Operators see who follows the network and how far behind its consumer is.
  const token = await f.t.operatorToken();
  const status = await f.t.graphql(
    token,
    '{ chainFollowers { network stream owner headBlock cursorBlock lagBlocks lagSeconds } }',
  );
  const [stream] = status.data.chainFollowers;
  expect(stream).toMatchObject({ network: 'eth', stream: 'sessions', owner: (await leaders())[0]!.owner });
  expect(stream.lagBlocks).toBeGreaterThanOrEqual(0);
  expect(stream.lagBlocks).toBeLessThanOrEqual(stream.headBlock - f.startBlock);
  expect(stream.cursorBlock).toBeGreaterThan(f.startBlock);
});

it('following takes no job slot: a worker of concurrency 1 runs its jobs while it leads', async () => {
  for (const w of workers.splice(0)) await w.stop();
  const w = await worker(1);
  for (let i = 0; i < 50 && !w.followers?.leadership.leading.has('eth'); i++) await sleep(100);
  expect(w.followers?.leadership.leading.has('eth')).toBe(true);
  // With its only slot free a job runs at once; were following holding it, it would never run.
  await addJob(f.t.app.fork(), PRUNE_NONCES_JOB, {}, { jobKey: 'probe' });
  let left = 1;
  for (let i = 0; i < 50 && left > 0; i++) {
    await sleep(100);
    const [row] = await f.t.app
      .fork()
      .execute<{ n: string }[]>(
        `select count(*) as n from graphile_worker._private_jobs where key = 'probe'`,
      );
    left = Number(row?.n);
  }
  expect(left).toBe(0);
});

it('a stopped leader hands the network over at once', async () => {
  const standby = await worker();
  const leader = workers.find((w) => w !== standby && w.followers?.leadership.leading.has('eth'))!;
  expect(leader).toBeTruthy();
  expect(standby.followers?.leadership.leading.has('eth')).toBe(false);
  await leader.stop();
  workers.splice(workers.indexOf(leader), 1);
  for (let i = 0; i < 50 && !standby.followers?.leadership.leading.has('eth'); i++) await sleep(100);
  expect(standby.followers?.leadership.leading.has('eth')).toBe(true);
});

it('a leader whose lock connection dropped takes the network anew when it leads again', async () => {
  // Another process may have led the network meanwhile: whatever the follower and its consumers
  // remembered between ticks (what a pass found left to settle) is made anew, as at a start, and
  // the process records that it follows the network again.
  for (const w of workers.splice(0)) await w.stop();
  const leader = await worker();
  for (let i = 0; i < 50 && !leader.followers?.leadership.leading.has('eth'); i++) await sleep(100);
  expect(leader.followers?.leadership.leading.has('eth')).toBe(true);
  const since = async () =>
    (
      await f.t.app
        .fork()
        .execute<{ since: string }[]>(
          `select since::text as since from chain_followers where network = 'eth'`,
        )
    )[0]!.since;
  const before = await since();
  await f.t.app.fork().execute(
    `select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted
        and database = (select oid from pg_database where datname = current_database())`,
  );
  for (let i = 0; i < 100 && (await since()) === before; i++) await sleep(100);
  expect(await since()).not.toBe(before);
  expect(leader.followers?.leadership.leading.has('eth')).toBe(true);
});
