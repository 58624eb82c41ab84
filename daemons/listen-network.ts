import { setTimeout as sleep } from 'node:timers/promises';
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { App } from '../src/app.ts';
import type { EntityManager } from '../src/db/orm.ts';
import { isAppError } from '../src/errors.ts';
import {
  createListener,
  type ListenerDeps,
  type ListenerOptions,
} from '../src/modules/session/session.listener.ts';

/**
 * `listen_network` {network}: follows one network's payment router and settles sessions. The job runs
 * passes for up to JOB_SPAN_MS (sleeping the network's poll interval whenever it caught up with the
 * head), then re-adds itself. The job key and a queue per network keep exactly one job per network
 * pending and never two running; a pass is idempotent, so a job that runs twice is harmless.
 */

export const LISTEN_NETWORK_TASK = 'listen_network';
/** How long one job follows the chain before handing over to its successor. */
export const JOB_SPAN_MS = 20_000;
/** Delay before the next job after a failed pass (node down, database hiccup). */
export const RETRY_DELAY_MS = 5_000;
/**
 * A listener job locked for longer than this belongs to a worker that died mid-job (a live one hands
 * over every JOB_SPAN_MS). graphile-worker itself would keep it, and its queue, locked for 4 hours.
 */
export const STALE_LOCK_MS = 120_000;

const payloadSchema = z.object({ network: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/) });

export const listenJobKey = (network: string) => `${LISTEN_NETWORK_TASK}:${network}`;

/**
 * Adds the network's job. `replace` (a job scheduling its successor) moves the pending job to `runAt`;
 * `preserve_run_at` (the periodic kick) only makes sure one exists.
 */
export async function scheduleListener(
  em: EntityManager,
  network: string,
  options: { runAt?: Date; mode?: 'replace' | 'preserve_run_at' } = {},
): Promise<void> {
  await em.execute(
    `select graphile_worker.add_job(?, ?::json, queue_name => ?, run_at => ?::timestamptz, job_key => ?,
       job_key_mode => ?, max_attempts => 3)`,
    [
      LISTEN_NETWORK_TASK,
      JSON.stringify({ network }),
      listenJobKey(network),
      (options.runAt ?? new Date()).toISOString(),
      listenJobKey(network),
      options.mode ?? 'replace',
    ],
  );
}

export const listenNetworkTask =
  (deps: ListenerDeps & { options?: ListenerOptions; spanMs?: number }): Task =>
  async (payload, helpers) => {
    const { network } = payloadSchema.parse(payload);
    const listener = createListener(deps, network, deps.options);
    const started = Date.now();
    let delay = 0;
    try {
      while (!helpers.abortSignal.aborted && Date.now() - started < (deps.spanMs ?? JOB_SPAN_MS)) {
        const result = await listener.pass();
        if (result.completed.length || result.failed.length || result.payments) {
          helpers.logger.info(
            `${network}: ${result.payments} payments, ${result.completed.length} completed, ${result.failed.length} failed`,
          );
        }
        if (result.caughtUp)
          await sleep(listener.network.pollIntervalMs, undefined, { signal: helpers.abortSignal }).catch(
            () => {},
          );
      }
    } catch (error) {
      // A degraded node is expected now and then: keep following, just later. Anything else is a bug:
      // the job fails visibly, and its successor still comes (later, so a bug never spins).
      delay = RETRY_DELAY_MS;
      if (!isAppError(error) || error.code !== 'unavailable') throw error;
      helpers.logger.warn(`${network}: pass failed, retrying in ${RETRY_DELAY_MS} ms: ${error.message}`);
    } finally {
      await scheduleListener(deps.fork(), network, { runAt: new Date(Date.now() + delay) });
    }
  };

export const listenNetwork = (app: App): Task =>
  listenNetworkTask({
    fork: () => app.fork(),
    chains: app.services.sessionChains,
    config: app.config,
    logger: app.logger,
  });

/**
 * Releases listener jobs (and their queues) held by workers that died mid-job, so following resumes
 * within STALE_LOCK_MS of a crash instead of graphile-worker's 4 hours. A released job that was in fact
 * still running would only run a second, harmless pass: passes are idempotent.
 */
export async function unlockStaleListeners(em: EntityManager): Promise<string[]> {
  const rows = await em.execute<{ locked_by: string }[]>(
    `select distinct j.locked_by
       from graphile_worker._private_jobs j
       join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = ? and j.locked_by is not null and j.locked_at < now() - make_interval(secs => ?)`,
    [LISTEN_NETWORK_TASK, STALE_LOCK_MS / 1000],
  );
  const workers = rows.map((r) => r.locked_by);
  if (workers.length) {
    await em.execute(
      'select graphile_worker.force_unlock_workers(array(select jsonb_array_elements_text(?::jsonb)))',
      [JSON.stringify(workers)],
    );
  }
  return workers;
}

/** Makes sure every network with a payment router has its listener job (cron, and at worker start). */
export async function kickListeners(app: App): Promise<void> {
  const em = app.fork();
  const released = await unlockStaleListeners(em);
  if (released.length) app.logger.warn('released listener jobs of dead workers', { workers: released });
  for (const network of app.services.sessionChains.sessionNetworks()) {
    await scheduleListener(em, network.id, { mode: 'preserve_run_at' });
  }
}

/** `listen_networks` (every minute): re-creates a listener job that went missing. Idempotent. */
export const listenNetworks =
  (app: App): Task =>
  async () => {
    await kickListeners(app);
  };
