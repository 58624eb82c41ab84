import type { WorkerEvents, WorkerPool } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from '../lib/logger.ts';

/**
 * Wakes this process's graphile-worker pool when a job scheduled for later becomes due, so that its
 * idle workers need not poll for one. A job added to run now wakes the pool by itself (graphile-worker
 * LISTENs on `jobs:insert`); what nothing announces is a job that becomes due later: a retry's backoff,
 * a relay or webhook attempt queued with `runAt`. Each idle worker polled for those every 2 s (240
 * statements a minute at concurrency 8, a sixth of an idle stack's). Instead, one read of the jobs
 * table tells this waker how many jobs are due now and when the next one is; it nudges that many
 * workers and sets a timer for the next. The read runs when a job is added anywhere (the same
 * `jobs:insert` notification, coalesced), when a job of this process failed (its retry's time), when
 * the timer fires, when graphile-worker's LISTEN connection came back (notifications sent while it was
 * away are lost) and every {@link DUE_SWEEP_MS} whatever happens (a retry scheduled by a process that
 * died). A job therefore runs within milliseconds of its `run_at` (was: up to the 2 s poll), and at
 * most {@link DUE_SWEEP_MS} late when nothing announced it.
 */

/** The longest a due job nothing announced waits for this process to look. */
export const DUE_SWEEP_MS = 30_000;
/** Notifications that arrive together (a burst of added jobs) are answered by one read. */
export const NOTIFY_COALESCE_MS = 50;
/** The next try after a failed read (the database unavailable). */
const RETRY_MS = 2_000;
/**
 * After graphile-worker's LISTEN connection came (back): its LISTEN statement runs after the event,
 * and a job added before it took effect was announced to nobody.
 */
const RELISTEN_MS = 1_000;

/**
 * How many jobs this pool can take now (at most `limit`: that many workers are nudged at most), and in
 * how many milliseconds the next one is due, by the database's clock (a job's `run_at` is written with
 * it). Jobs of tasks this process does not run are not counted: nudging for them would find nothing.
 */
const DUE_SQL = `
  with mine as (select id from graphile_worker._private_tasks where identifier = any($2::text[]))
  select (select count(*)::int from (select 1 from graphile_worker._private_jobs j
            where j.is_available and j.run_at <= now() and j.task_id in (select id from mine) limit $1) d) as due,
         (select extract(epoch from min(j.run_at) - now())::float8 * 1000 from graphile_worker._private_jobs j
            where j.is_available and j.run_at > now() and j.task_id in (select id from mine)) as next_ms`;

export interface DueWaker {
  /** Starts reading (after `run` returned: the pool exists). */
  start(): void;
  /** Stops the timers and waits for a read in flight. */
  stop(): Promise<void>;
}

export interface DueWakerDeps {
  /** The worker's own connection pool. */
  pool: pg.Pool;
  /** The emitter given to graphile-worker's `run` (its pool is announced on it). */
  events: WorkerEvents;
  /** The task names this process runs. */
  tasks: readonly string[];
  concurrency: number;
  logger: Logger;
}

export function dueWaker(deps: DueWakerDeps): DueWaker {
  let workerPool: WorkerPool | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  /** When retries of jobs this process failed are due (by this clock), until a read has seen them. */
  let hints: number[] = [];
  let reading: Promise<void> | undefined;
  let again = false;
  let started = false;
  let stopped = false;
  let failing = false;

  /** A read at `at` at the latest (an earlier one already set stands). */
  const readAt = (at: number) => {
    if (stopped || !started || at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(fire, Math.max(0, at - Date.now()));
    timer.unref();
  };

  const fire = () => {
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
    const now = Date.now();
    hints = hints.filter((h) => h > now);
    read();
  };

  const read = () => {
    if (stopped) return;
    if (reading) {
      again = true; // a job may have been added after the read in flight looked
      return;
    }
    reading = readOnce().finally(() => {
      reading = undefined;
      if (again) {
        again = false;
        read();
      }
    });
  };

  async function readOnce(): Promise<void> {
    let next = Date.now() + DUE_SWEEP_MS;
    try {
      const { rows } = await deps.pool.query<{ due: number; next_ms: number | null }>(DUE_SQL, [
        deps.concurrency,
        deps.tasks,
      ]);
      const { due, next_ms } = rows[0]!;
      if (failing) deps.logger.info('worker: due jobs readable again');
      failing = false;
      if (due > 0 && !stopped) nudge(due);
      if (next_ms !== null) next = Math.min(next, Date.now() + Math.ceil(next_ms));
    } catch (error) {
      if (!failing) deps.logger.warn('worker: cannot read due jobs; retrying', { error: String(error) });
      failing = true;
      next = Date.now() + RETRY_MS;
    }
    if (hints.length > 0) next = Math.min(next, hints[0]!);
    readAt(next);
  }

  /** Wakes up to `n` idle workers; a pool shutting down (a worker released) is left alone. */
  const nudge = (n: number) => {
    try {
      workerPool?.nudge(n);
    } catch {
      // graphile-worker asserts its workers are active: during its own shutdown nothing needs waking.
    }
  };

  deps.events.on('pool:create', ({ workerPool: created }) => {
    workerPool = created;
  });
  deps.events.on('pool:listen:notification', ({ message }) => {
    if (message.channel === 'jobs:insert') readAt(Date.now() + NOTIFY_COALESCE_MS);
  });
  deps.events.on('pool:listen:success', () => readAt(Date.now() + RELISTEN_MS));
  deps.events.on('job:complete', ({ job, error }) => {
    if (!error || job.attempts >= job.max_attempts) return;
    // graphile-worker's backoff (failJobs): exp(min(attempts, 10)) seconds. The read at that time
    // finds the retry by the database's clock (and sets a timer again if it is not due yet).
    const at = Date.now() + Math.ceil(Math.exp(Math.min(job.attempts, 10)) * 1000);
    hints = [...hints, at].sort((a, b) => a - b);
    readAt(at);
  });

  return {
    start() {
      started = true;
      read();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await reading;
    },
  };
}
