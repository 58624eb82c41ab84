import { EventEmitter } from 'node:events';
import { parseCronItems, type Runner, run, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import {
  type ChainFollowers,
  type FollowerOptions,
  startChainFollowers,
} from '../../daemons/chain-followers.ts';
import { crontab, makeTaskList, startCompanions } from '../../daemons/index.ts';
import type { App } from '../app.ts';
import { dueWaker } from './due.ts';
import { graphileLogger } from './log.ts';

/**
 * How often an idle graphile-worker worker looks for a job by itself. Jobs to run now arrive by
 * LISTEN/NOTIFY and jobs that become due later are woken by due.ts, so this poll only finds what
 * neither sees: a job whose worker was killed, once graphile-worker's 4 h lock on it expired.
 */
export const WORKER_POLL_INTERVAL_MS = 300_000;

/** A running worker; `stop` lets running jobs finish, then closes the worker's connections. */
export interface Worker {
  runner: Runner;
  /** The chain followers of this process (leading some networks, standing by for the others). */
  followers: ChainFollowers | undefined;
  stop(): Promise<void>;
}

/**
 * Runs the daemons as graphile-worker tasks on the service's own PostgreSQL: in the API process by
 * default, or in any number of separate `npm run worker` processes (jobs are claimed with SKIP
 * LOCKED, so processes share the work without coordination).
 */
export async function startWorker(
  app: App,
  options: { taskList?: TaskList; followers?: boolean | FollowerOptions } = {},
): Promise<Worker> {
  // Our own pool, so that a connection the database drops (restart, shutdown) is logged, never an
  // unhandled 'error' event that takes the process down.
  const pool = new pg.Pool({
    connectionString: app.config.databaseUrl,
    max: app.config.workerConcurrency + 2,
  });
  const lost = (error: Error) => app.logger.warn('worker database connection lost', { error: error.message });
  pool.on('error', lost);
  // A connection dropped while a job holds it errors on the client itself, not on the pool.
  pool.on('connect', (client) => client.on('error', lost));
  const taskList = options.taskList ?? makeTaskList(app);
  const events = new EventEmitter() as WorkerEvents;
  const due = dueWaker({
    pool,
    events,
    tasks: Object.keys(taskList),
    concurrency: app.config.workerConcurrency,
    logger: app.logger,
  });
  const runner = await run({
    pgPool: pool,
    concurrency: app.config.workerConcurrency,
    noHandleSignals: true,
    events,
    // Each idle worker of the pool polls on its own (at graphile's 2 s default, 240 queries a minute at
    // concurrency 8, a sixth of an idle stack's statements): the due-job waker reads once for all.
    pollInterval: WORKER_POLL_INTERVAL_MS,
    logger: graphileLogger(app.logger),
    taskList,
    parsedCronItems: parseCronItems(crontab),
    // Completions and failures go through a batcher that `stop` flushes: unbatched, a job finishing
    // as the worker stops could be left locked (re-run in 4 hours, or never: a pump whose key moved
    // to a newer job has used up its attempts).
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
  due.start();
  // The modules' companions run with the whole task list (a worker given its own tasks runs just those).
  let stopCompanions: (() => Promise<void>) | undefined;
  try {
    if (!options.taskList) stopCompanions = await startCompanions(app);
  } catch (error) {
    await due.stop();
    await runner.stop();
    await pool.end();
    throw error;
  }
  const followOptions = options.followers ?? !options.taskList;
  const followers = followOptions
    ? startChainFollowers(app, typeof followOptions === 'object' ? followOptions : {})
    : undefined;
  app.logger.info('worker started', {
    concurrency: app.config.workerConcurrency,
    networks: followers?.networks ?? [],
  });
  return {
    runner,
    followers,
    async stop() {
      await stopCompanions?.();
      await followers?.stop();
      await due.stop();
      await runner.stop();
      // Webhook attempts a run left to slow receivers are recorded before the database goes away.
      await app.services.webhooks.close();
      await pool.end();
    },
  };
}
