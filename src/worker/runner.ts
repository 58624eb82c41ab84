import { parseCronItems, type Runner, run, type TaskList } from 'graphile-worker';
import { crontab, makeTaskList } from '../../daemons/index.ts';
import { kickListeners } from '../../daemons/listen-network.ts';
import type { App } from '../app.ts';

/**
 * Runs the daemons as graphile-worker tasks on the service's own PostgreSQL: in the API process by
 * default, or in any number of separate `npm run worker` processes (jobs are claimed with SKIP
 * LOCKED, so processes share the work without coordination).
 */
export async function startWorker(app: App, options: { taskList?: TaskList } = {}): Promise<Runner> {
  const runner = await run({
    connectionString: app.config.databaseUrl,
    concurrency: app.config.workerConcurrency,
    noHandleSignals: true,
    pollInterval: 1_000,
    taskList: options.taskList ?? makeTaskList(app),
    parsedCronItems: parseCronItems(crontab),
    logger: undefined,
  });
  // Follow every chain at once rather than at the next minute's cron tick.
  if (!options.taskList) await kickListeners(app);
  app.logger.info('worker started', { concurrency: app.config.workerConcurrency });
  return runner;
}
