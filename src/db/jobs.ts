import type { JobHelpers, Task } from 'graphile-worker';
import type { z } from 'zod';
import type { EntityManager } from './orm.ts';

/**
 * Background jobs, typed: a job is declared once with its graphile-worker task name, the schema of its
 * payload and (when it has one) the key that merges a pending duplicate. Adding a job checks its
 * payload against that schema; the task that runs it parses the payload with the same schema. Every
 * module's jobs, gathered in src/modules/index.ts, make the catalogue the worker runs.
 */

export interface JobDefinition<P> {
  /** The graphile-worker task name. */
  readonly name: string;
  readonly payload: z.ZodType<P>;
  /** Key of a job that replaces a pending one with the same key instead of adding a second. */
  readonly key?: (payload: P) => string;
}

export const defineJob = <P>(job: JobDefinition<P>): JobDefinition<P> => job;

export interface JobOptions {
  runAt?: Date;
  maxAttempts?: number;
  queueName?: string;
  priority?: number;
  /** Overrides the job's own key (e.g. a test adding a second job for the same payload). */
  jobKey?: string;
}

/**
 * Adds a job through `em`'s connection, so inside `em.transactional` the job exists exactly when the
 * business change commits: a rolled-back change never runs its job, and a committed one always has it.
 */
export async function addJob<P>(
  em: EntityManager,
  job: JobDefinition<P>,
  payload: P,
  options: JobOptions = {},
): Promise<void> {
  const checked = job.payload.parse(payload);
  await em.execute(
    `select graphile_worker.add_job(?, ?::json, queue_name => ?, run_at => ?::timestamptz, max_attempts => ?, job_key => ?, priority => ?)`,
    [
      job.name,
      JSON.stringify(checked ?? {}),
      options.queueName ?? null,
      options.runAt?.toISOString() ?? null,
      options.maxAttempts ?? null,
      options.jobKey ?? job.key?.(checked) ?? null,
      options.priority ?? null,
    ],
  );
}

/** A job's task: its payload parsed with the job's schema before `run` sees it. */
export interface JobTask<P = unknown> {
  job: JobDefinition<P>;
  run: (payload: P, helpers: JobHelpers) => Promise<void>;
}

export const jobTask = <P>(job: JobDefinition<P>, run: (payload: P, helpers: JobHelpers) => Promise<void>) =>
  ({ job, run }) as JobTask<P> as JobTask;

/** The graphile-worker task list of `tasks`; two tasks for one job name is a mistake, refused. */
export function taskListOf(tasks: readonly JobTask[]): Record<string, Task> {
  const list: Record<string, Task> = {};
  for (const { job, run } of tasks) {
    if (list[job.name]) throw new Error(`two tasks for job ${job.name}`);
    list[job.name] = (payload, helpers) => run(job.payload.parse(payload), helpers);
  }
  return list;
}
