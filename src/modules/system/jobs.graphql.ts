import type { EntityManager } from '../../db/orm.ts';
import { builder } from '../../graphql/builder.ts';
import { requireOperator } from '../../graphql/guards.ts';

/** Operators: the worker's queue per task — what waits, what runs, what keeps failing. */

export interface JobCount {
  task: string;
  waiting: number;
  running: number;
  failing: number;
  lastError: string | null;
}

/** Counts of graphile-worker's queue by task; empty until a worker has created its schema. */
export async function jobCounts(em: EntityManager): Promise<JobCount[]> {
  const [queue] = await em.execute<{ present: boolean }[]>(
    `select to_regclass('graphile_worker._private_jobs') is not null as present`,
  );
  if (!queue?.present) return [];
  const rows = await em.execute<
    { task: string; waiting: string; running: string; failing: string; last_error: string | null }[]
  >(
    `select t.identifier as task,
            count(*) filter (where j.locked_at is null) as waiting,
            count(*) filter (where j.locked_at is not null) as running,
            count(*) filter (where j.attempts > 0 and j.last_error is not null) as failing,
            (array_agg(j.last_error order by j.updated_at desc) filter (where j.last_error is not null))[1]
              as last_error
       from graphile_worker._private_jobs j
       join graphile_worker._private_tasks t on t.id = j.task_id
      group by 1 order by 1`,
  );
  return rows.map((r) => ({
    task: r.task,
    waiting: Number(r.waiting),
    running: Number(r.running),
    failing: Number(r.failing),
    lastError: r.last_error,
  }));
}

const JobCountRef = builder.objectRef<JobCount>('WorkerJobCount').implement({
  description: 'The worker queue of one task.',
  fields: (t) => ({
    task: t.exposeString('task'),
    waiting: t.exposeInt('waiting', { description: 'Due or scheduled, not taken by a worker.' }),
    running: t.exposeInt('running', { description: 'Taken by a worker now.' }),
    failing: t.exposeInt('failing', { description: 'Failed at least once and queued for a retry.' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'The latest failure of one.' }),
  }),
});

builder.queryFields((t) => ({
  workerJobs: t.field({
    type: [JobCountRef],
    description: 'The worker queue by task: waiting, running and failing jobs (operators).',
    resolve: (_, __, ctx) => {
      requireOperator(ctx);
      return jobCounts(ctx.em);
    },
  }),
}));
