import type { CronItem, TaskList } from 'graphile-worker';
import type { App } from '../src/app.ts';
import { taskListOf } from '../src/db/jobs.ts';
import { modules, crontab as modulesCrontab } from '../src/modules/index.ts';

/** Every daemon task, keyed by its graphile-worker task name: each module's jobs. */
export function makeTaskList(app: App): TaskList {
  const context = { services: app.services, fork: () => app.fork() };
  return taskListOf(modules.flatMap((m) => m.tasks?.(context) ?? []));
}

/** Periodic tasks. */
export const crontab: CronItem[] = modulesCrontab;
