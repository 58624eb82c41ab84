import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, type Runner, run } from 'graphile-worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  kickListeners,
  LISTEN_NETWORK_TASK,
  listenJobKey,
  listenNetworkTask,
  scheduleListener,
} from '../../daemons/listen-network.ts';
import { addJob } from '../../src/worker/jobs.ts';
import { mine, type SessionFixture, sendWalletAction, sessionFixture, webhooksOf } from './support.ts';

/** The listener as the real graphile-worker task: one job per network, re-scheduling itself. */

let f: SessionFixture;
let runner: Runner;
beforeAll(async () => {
  f = await sessionFixture({ players: 1 });
  runner = await run({
    connectionString: f.t.config.databaseUrl,
    concurrency: 4,
    noHandleSignals: true,
    pollInterval: 100,
    logger: new Logger(() => () => {}),
    taskList: {
      [LISTEN_NETWORK_TASK]: listenNetworkTask({
        fork: () => f.t.app.fork(),
        chains: f.t.app.services.sessionChains,
        config: f.t.app.config,
        logger: f.t.app.logger,
        options: { startBlock: f.startBlock },
        spanMs: 500,
      }),
    },
  });
});
afterAll(async () => {
  await runner?.stop().catch(() => {}); // the last test stops it itself
  await f?.close();
});

const jobs = async () =>
  f.t.app
    .fork()
    .execute<
      { key: string | null; locked: boolean; payload: { network: string }; last_error: string | null }[]
    >(
      `select j.key, j.locked_at is not null as locked, j.payload, j.last_error
         from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
        where t.identifier = ?`,
      [LISTEN_NETWORK_TASK],
    );

it('keeps exactly one keyed job per network while settling a payment end to end', async () => {
  await scheduleListener(f.t.app.fork(), 'eth');
  await kickListeners(f.t.app);
  await kickListeners(f.t.app);

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

  const samples: number[] = [];
  for (let i = 0; i < 100; i++) {
    const rows = (await jobs()).filter((j) => j.payload.network === 'eth');
    samples.push(rows.filter((j) => j.key === listenJobKey('eth')).length);
    expect(rows.length).toBeLessThanOrEqual(2); // one running (keyless) and its one successor at most
    if ((await f.call('/v1/cashier/status', { session })).body.status === 'completed') break;
    await mine(f, 1);
    await sleep(100);
  }
  expect((await f.call('/v1/cashier/status', { session })).body).toMatchObject({ step: 'completed' });
  // Always exactly one job holds the network's key: the running one or its successor.
  expect(new Set(samples)).toEqual(new Set([1]));
  expect(await webhooksOf(f, session)).toHaveLength(1);
});

it('refuses a malformed payload without re-scheduling it', async () => {
  await addJob(f.t.app.fork(), LISTEN_NETWORK_TASK, { network: 'NOT A NETWORK' }, { maxAttempts: 1 });
  let failed: { last_error: string | null } | undefined;
  for (let i = 0; i < 50 && !failed?.last_error; i++) {
    failed = (await jobs()).find((j) => j.payload.network === 'NOT A NETWORK');
    await sleep(100);
  }
  expect(failed?.last_error).toMatch(/network/);
});

it('a listener job left locked by a worker that died is released and runs again', async () => {
  await runner.stop();
  const em = f.t.app.fork();
  await scheduleListener(em, 'eth');
  // What a worker killed mid-job leaves behind: its job and the job's queue locked in its name.
  await em.execute(
    `update graphile_worker._private_jobs j set locked_by = 'dead-worker', locked_at = now() - interval '10 minutes'
       from graphile_worker._private_tasks t where t.id = j.task_id and t.identifier = ?`,
    [LISTEN_NETWORK_TASK],
  );
  await em.execute(
    `update graphile_worker._private_job_queues set locked_by = 'dead-worker', locked_at = now() - interval '10 minutes'
      where queue_name = ?`,
    [listenJobKey('eth')],
  );
  expect((await jobs()).every((j) => j.locked)).toBe(true);
  await kickListeners(f.t.app);
  const after = await jobs();
  expect(after.length).toBeGreaterThan(0);
  expect(after.some((j) => !j.locked && j.key === listenJobKey('eth'))).toBe(true);
  const queue = await em.execute<{ locked_by: string | null }[]>(
    'select locked_by from graphile_worker._private_job_queues where queue_name = ?',
    [listenJobKey('eth')],
  );
  expect(queue.every((q) => q.locked_by === null)).toBe(true);
});
