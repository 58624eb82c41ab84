import type { CronItem, TaskList } from 'graphile-worker';
import type { App } from '../src/app.ts';
import { taskListOf } from '../src/db/jobs.ts';
import { modules, crontab as modulesCrontab } from '../src/modules/index.ts';

/** Every daemon task, keyed by its graphile-worker task name: each module's jobs. */
export function makeTaskList(app: App): TaskList {
  const context = { services: app.services, fork: () => app.fork() };
  return taskListOf(modules.flatMap((m) => m.tasks?.(context) ?? []));
}

/** Starts every module's worker companion; the answer stops them all. */
export async function startCompanions(app: App): Promise<() => Promise<void>> {
  const context = { services: app.services, fork: () => app.fork() };
  const started: { stop(): Promise<void> }[] = [];
  try {
    for (const m of modules) if (m.companion) started.push(await m.companion(context));
  } catch (error) {
    await Promise.all(started.map((c) => c.stop()));
    throw error;
  }
  return async () => {
    await Promise.all(started.map((c) => c.stop()));
  };
}

/** Periodic tasks. */
export const crontab: CronItem[] = modulesCrontab;
