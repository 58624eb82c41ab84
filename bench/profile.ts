import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import type { EntityManager } from '../src/db/orm.ts';

/**
 * Where a bench's time goes: this process's CPU profile over chosen windows (`--cpu-prof`), and the
 * statements PostgreSQL ran (`--statements`, with EMBEDDED_PG_STATEMENTS=1: pg_stat_statements).
 */

/**
 * The bench process's CPU profile over the windows between `resume` and `pause` only (`--cpu-prof
 * FILE`, for Chrome's or VS Code's profile view): samples outside them (a baseline, the rows deleted
 * between runs) go to the idle node. `label` names the windows in the line printed.
 */
export async function startProfiler(label = 'the warm scans') {
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  let since = process.hrtime.bigint();
  const windows: [bigint, bigint][] = [];
  return {
    resume: async () => {
      since = process.hrtime.bigint();
    },
    pause: async () => {
      windows.push([since, process.hrtime.bigint()]);
    },
    async stop(file: string) {
      const { profile } = await post<{ profile: CpuProfile }>('Profiler.stop');
      session.disconnect();
      writeFileSync(file, JSON.stringify(keepWindows(profile, windows)));
      console.log(`   CPU profile (${label}): ${file}`);
    },
  };
}

interface CpuProfile {
  nodes: { id: number }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The profile's samples inside `windows` (hrtime, ns): each one outside goes to the program's idle node. */
function keepWindows(profile: CpuProfile, windows: [bigint, bigint][]): CpuProfile {
  const idle = profile.nodes.find(
    (n) => (n as { callFrame?: { functionName: string } }).callFrame?.functionName === '(idle)',
  );
  let t = profile.startTime;
  const samples = profile.samples.map((node, i) => {
    t += profile.timeDeltas[i]!;
    const at = BigInt(Math.round(t)) * 1000n;
    return windows.some(([a, b]) => at >= a && at <= b) || !idle ? node : idle.id;
  });
  return { ...profile, samples };
}

/** What the database ran since pg_stat_statements was last reset (`--statements`), by time. */
export async function printStatements(em: EntityManager, during = 'the scan'): Promise<void> {
  const rows = await em.execute<{ calls: number; ms: number; query: string }[]>(
    `select s.calls::int as calls, round(s.total_exec_time::numeric, 1)::float as ms,
            left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) as query
       from pg_stat_statements s
      where s.dbid = (select oid from pg_database where datname = current_database())
        and s.query not like '%pg_stat_statements%'
      order by s.total_exec_time desc`,
  );
  const calls = rows.reduce((n, r) => n + r.calls, 0);
  const ms = rows.reduce((n, r) => n + r.ms, 0);
  console.log(
    `   statements during ${during}: ${calls} calls, ${ms.toFixed(1)} ms executing (pg_stat_statements)`,
  );
  for (const r of rows)
    console.log(`     ${String(r.calls).padStart(5)} calls ${r.ms.toFixed(1).padStart(7)} ms  ${r.query}`);
}
