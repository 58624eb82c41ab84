import type { CronItem, TaskList } from 'graphile-worker';
import type { App } from '../src/app.ts';
import { pruneNonces } from './prune-nonces.ts';

/** Every daemon task, keyed by its graphile-worker task name. */
export function makeTaskList(app: App): TaskList {
  return {
    prune_nonces: pruneNonces(app),
  };
}

/** Periodic tasks. */
export const crontab: CronItem[] = [
  // Nonces only matter inside the replay window; keep the table small.
  { task: 'prune_nonces', match: '*/5 * * * *', identifier: 'prune_nonces', options: { backfillPeriod: 0 } },
];
