import type { EntityManager } from '../db/orm.ts';

export interface JobOptions {
  /** Replaces a pending job with the same key instead of adding a second one. */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
  queueName?: string;
  priority?: number;
}

/**
 * Adds a graphile-worker job through `em`'s connection, so inside `em.transactional` the job exists
 * exactly when the business change commits: a rolled-back change never runs its job, and a committed
 * one always has it.
 */
export async function addJob(em: EntityManager, task: string, payload: unknown, options: JobOptions = {}) {
  await em.execute(
    `select graphile_worker.add_job(?, ?::json, queue_name => ?, run_at => ?::timestamptz, max_attempts => ?, job_key => ?, priority => ?)`,
    [
      task,
      JSON.stringify(payload ?? {}),
      options.queueName ?? null,
      options.runAt?.toISOString() ?? null,
      options.maxAttempts ?? null,
      options.jobKey ?? null,
      options.priority ?? null,
    ],
  );
}
