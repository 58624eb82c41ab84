import { runOnce } from 'graphile-worker';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTaskList } from '../../daemons/index.ts';
import { addJob, defineJob, jobTask, taskListOf } from '../../src/db/jobs.ts';
import { PRUNE_NONCES_JOB } from '../../src/modules/auth/auth.tasks.ts';
import { startWorker } from '../../src/worker/runner.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('the prune_nonces task deletes nonces older than the replay window only', async () => {
  const db = new pg.Client(t.config.databaseUrl);
  await db.connect();
  try {
    await db.query(`insert into request_nonces (key_id, nonce, created_at) values
      ('key_a', 'old-nonce-1', now() - interval '1 hour'), ('key_a', 'fresh-nonce', now())`);
    await addJob(t.app.fork(), PRUNE_NONCES_JOB, {});
    await runOnce({
      connectionString: t.config.databaseUrl,
      taskList: makeTaskList(t.app),
      noHandleSignals: true,
    });
    const left = await db.query('select nonce from request_nonces order by nonce');
    expect(left.rows.map((r) => r.nonce)).toEqual(['fresh-nonce']);
  } finally {
    await db.end();
  }
});

it('a job added inside a rolled-back transaction never exists; a committed one does', async () => {
  const em = t.app.fork();
  await expect(
    em.transactional(async (tx) => {
      await addJob(tx, PRUNE_NONCES_JOB, { marker: 'rolled-back' });
      throw new Error('abort');
    }),
  ).rejects.toThrow('abort');
  await em.transactional(async (tx) => addJob(tx, PRUNE_NONCES_JOB, { marker: 'committed' }));
  const rows = await em
    .getConnection()
    .execute(
      `select payload->>'marker' as marker from graphile_worker._private_jobs where payload->>'marker' is not null`,
    );
  expect(rows.map((r) => (r as { marker: string }).marker)).toEqual(['committed']);
});

it('a worker whose database connections are all cut keeps running and takes the next job', async () => {
  const done: string[] = [];
  const mark = defineJob({ name: 'mark', payload: z.object({ n: z.string() }) });
  const worker = await startWorker(t.app, {
    taskList: taskListOf([jobTask(mark, async ({ n }) => void done.push(n))]),
  });
  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 20_000;
    while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(check()).toBe(true);
  };
  const admin = new pg.Client(t.config.databaseUrl);
  await admin.connect();
  try {
    await addJob(t.app.fork(), mark, { n: 'before' });
    await until(() => done.includes('before'));
    // As when PostgreSQL restarts: every other session of this database is terminated, including the
    // worker's LISTEN connection and its idle pool.
    const { rows } = await admin.query<{ pid: number }>(
      'select pid, pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    // pg_terminate_backend only signals: wait until those sessions are gone, so the cut has reached
    // every client before the next job is added (through a pool that must not reuse a cut connection).
    const pids = rows.map((r) => r.pid);
    for (let left = pids.length; left > 0; ) {
      await new Promise((r) => setTimeout(r, 20));
      const alive = await admin.query('select count(*)::int as n from pg_stat_activity where pid = any($1)', [
        pids,
      ]);
      left = alive.rows[0].n;
    }
    await addJob(t.app.fork(), mark, { n: 'after' });
    await until(() => done.includes('after'));
  } finally {
    await admin.end();
    await worker.stop();
  }
});
