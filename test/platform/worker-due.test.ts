import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { addJob, defineJob, jobTask, taskListOf } from '../../src/db/jobs.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * An idle worker pool does not poll (src/worker/due.ts): jobs to run now are announced, and the
 * jobs that become due later (a `runAt`, a failed job's retry) are woken when due by one reader.
 * graphile-worker's own poll is minutes apart, so each job below ran because it was woken.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const ran: { n: string; at: number }[] = [];
const failedOnce = new Set<string>();
const mark = defineJob({ name: 'due_mark', payload: z.object({ n: z.string(), failFirst: z.boolean() }) });
const tasks = () =>
  taskListOf([
    jobTask(mark, async ({ n, failFirst }) => {
      if (failFirst && !failedOnce.has(n)) {
        failedOnce.add(n);
        throw new Error('first attempt fails');
      }
      ran.push({ n, at: Date.now() });
    }),
  ]);

const until = async (check: () => boolean, ms = 30_000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(50);
  expect(check()).toBe(true);
};

async function withWorker(run: (worker: Worker) => Promise<void>): Promise<void> {
  const worker = await startWorker(t.app, { taskList: tasks() });
  try {
    await run(worker);
  } finally {
    await worker.stop();
  }
}

it('an idle pool runs no query for jobs: none of its workers polls', async () => {
  await withWorker(async (worker) => {
    let looked = 0;
    let announced = 0;
    worker.runner.events.on('worker:getJob:start', () => looked++);
    worker.runner.events.on('pool:listen:notification', () => announced++);
    // Each worker looks once as it starts; then the pool is idle. A window in which a job was added
    // (a cron item at a minute's turn) is measured again.
    await sleep(1_000);
    for (let attempt = 0; attempt < 3; attempt++) {
      looked = announced = 0;
      await sleep(3_000);
      if (announced === 0) break;
    }
    expect(announced).toBe(0);
    expect(looked).toBe(0); // graphile-worker's default: each of 8 workers every 2 s
  });
});

it('a job added to run later, from another connection, runs once it is due', async () => {
  await withWorker(async () => {
    const runAt = Date.now() + 1_500;
    await addJob(t.app.fork(), mark, { n: 'later', failFirst: false }, { runAt: new Date(runAt) });
    await until(() => ran.some((r) => r.n === 'later'));
    expect(ran.find((r) => r.n === 'later')!.at).toBeGreaterThanOrEqual(runAt);
  });
});

it("a failed job's retry runs after its backoff", async () => {
  await withWorker(async () => {
    await addJob(t.app.fork(), mark, { n: 'retried', failFirst: true });
    await until(() => ran.some((r) => r.n === 'retried'));
    expect(failedOnce.has('retried')).toBe(true);
  });
});

it('a job scheduled before the worker started runs when due; one due already runs at once', async () => {
  const runAt = Date.now() + 2_000;
  await addJob(t.app.fork(), mark, { n: 'queued-before', failFirst: false }, { runAt: new Date(runAt) });
  await addJob(t.app.fork(), mark, { n: 'due-before', failFirst: false });
  await withWorker(async () => {
    await until(() => ran.some((r) => r.n === 'due-before'));
    await until(() => ran.some((r) => r.n === 'queued-before'));
    expect(ran.find((r) => r.n === 'queued-before')!.at).toBeGreaterThanOrEqual(runAt);
  });
});
