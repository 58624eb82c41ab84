/**
 * The cost of an idle service: `npm start` on the embedded stack with no traffic, its CPU measured
 * from outside (/proc) over a window after it settled, beside what its development fixture costs
 * (the anvil nodes, PostgreSQL; the Tron facade runs inside the API process and is counted there),
 * and the transactions and rows the database saw meanwhile. Then the same service in production mode
 * (DATABASE_URL and NETWORKS_FILE: nothing embedded) following the same three chains at the default
 * poll interval, as a second process (its networks under ids of their own, so it leads them itself).
 * Targets: embedded ≤ 3 % of a core; production ≤ 1 % of a core per followed network.
 *   npx tsx bench/idle.ts [--settle 15] [--window 60] [--profile DIR] [--reuse] [--statements]
 * `--reuse` keeps the stack's DATA_DIR between runs (smoke runs: a warm start). `--statements` loads
 * pg_stat_statements into the embedded server and prints the embedded window's statements per minute
 * (all of them, then the busiest). `--profile DIR` writes a CPU profile of each of the two processes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { embeddedUrl, freePort } from '../src/db/embedded-postgres.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { cpuSeconds, dbCounters, fixtureCpu, stackDir, startService, writesPerMinute } from './stack.ts';

const pct = (cpu: number, seconds: number) => (cpu / seconds) * 100;

/** The embedded stack's network file with the networks renamed and the default poll interval. */
function productionNetworks(dir: string): { file: string; count: number } {
  const networks = JSON.parse(readFileSync(path.join(dir, 'networks.json'), 'utf8')) as {
    networks: Record<string, unknown>[];
  };
  const renamed = networks.networks.map(({ pollIntervalMs: _default, ...n }) => ({
    ...n,
    id: `${n.id}-prod`,
  }));
  const file = path.join(dir, 'networks-prod.json');
  writeFileSync(file, `${JSON.stringify({ networks: renamed }, null, 2)}\n`);
  return { file, count: renamed.length };
}

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({
    args: argv,
    options: {
      settle: { type: 'string' },
      window: { type: 'string' },
      profile: { type: 'string' },
      reuse: { type: 'boolean' },
      statements: { type: 'boolean' },
    },
  });
  const settleS = Number(values.settle ?? 15);
  const windowS = Number(values.window ?? 60);
  const { dir, done } = stackDir(values.reuse ?? false, 'bench-idle-');
  const pgPort = await freePort();
  const databaseUrl = embeddedUrl(pgPort, 'gateway');
  const base = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir };
  // `--profile DIR`: a CPU profile of each process, written when it stops (the window is its last minute).
  const profile = (name: string) =>
    values.profile ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', path.resolve(values.profile, name)] } : {};
  const embedded = await startService(
    {
      ...base,
      EMBEDDED_PG_PORT: String(pgPort),
      ...(values.statements ? { EMBEDDED_PG_STATEMENTS: '1' } : {}),
    },
    profile('embedded'),
  );
  let production: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    await sleep(settleS * 1000);
    const measure = async (pid: number) => {
      const a = {
        cpu: cpuSeconds(pid),
        fixture: fixtureCpu(embedded.pid),
        db: await dbCounters(databaseUrl),
      };
      const t0 = performance.now();
      await sleep(windowS * 1000);
      const b = {
        cpu: cpuSeconds(pid),
        fixture: fixtureCpu(embedded.pid),
        db: await dbCounters(databaseUrl),
      };
      const s = (performance.now() - t0) / 1000;
      return {
        cpu: pct(b.cpu - a.cpu, s),
        anvil: pct(b.fixture.anvil - a.fixture.anvil, s),
        postgres: pct(b.fixture.postgres - a.fixture.postgres, s),
        anvilRssMb: b.fixture.anvilRssMb,
        // Less the two transactions of the measurement's own reads.
        commitsPerMin: ((b.db.commits - a.db.commits - 2) / s) * 60,
        writes: writesPerMinute(a.db.writes, b.db.writes, s),
      };
    };
    if (values.statements) await statements(databaseUrl, 'reset');
    const idle = await measure(embedded.pid);
    const perStatement = values.statements ? await statements(databaseUrl, 'read') : [];

    const networks = productionNetworks(dir);
    production = await startService(
      {
        ...base,
        DATABASE_URL: databaseUrl,
        NETWORKS_FILE: networks.file,
        SECRETS_KEY: readFileSync(path.join(dir, 'secrets.key'), 'utf8').trim(),
      },
      { ready: '"listening"', ...profile('production') },
    );
    await sleep(settleS * 1000);
    if (values.statements) await statements(databaseUrl, 'reset');
    const prod = await measure(production.pid);
    const bothStatements = values.statements ? await statements(databaseUrl, 'read') : [];
    const perNetwork = prod.cpu / networks.count;

    const line = (label: string, value: string) => console.log(`  ${label.padEnd(46)} ${value}`);
    console.log(
      `idle service, ${windowS} s windows after ${settleS} s, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    line(
      'embedded: API process (incl. the Tron facade)',
      `${idle.cpu.toFixed(2)} % of a core   (target ≤ 3 %)`,
    );
    line(
      '  fixture: anvil ×3',
      `${idle.anvil.toFixed(2)} % of a core, ${idle.anvilRssMb.toFixed(0)} MB resident`,
    );
    line('  fixture: PostgreSQL (all processes)', `${idle.postgres.toFixed(2)} % of a core`);
    line('  database: transactions committed', `${idle.commitsPerMin.toFixed(0)} /min`);
    for (const [table, n] of idle.writes) line(`    rows written: ${table}`, `${n.toFixed(0)} /min`);
    if (perStatement.length) {
      const total = perStatement.reduce((sum, r) => sum + Number(r.calls), 0);
      line('  database: statements (pg_stat_statements)', `${total.toFixed(0)} /min, busiest first:`);
    }
    for (const r of perStatement.slice(0, 30)) console.log(`      ${r.calls.padStart(6)} /min  ${r.query}`);
    line(`production mode: ${networks.count} networks, default poll`, `${prod.cpu.toFixed(2)} % of a core`);
    line('  per followed network', `${perNetwork.toFixed(2)} % of a core   (target ≤ 1 %)`);
    // Both services commit to the one database in this window: the production one's share is the rise.
    line(
      '  database: transactions committed (both)',
      `${prod.commitsPerMin.toFixed(0)} /min (embedded alone: ${idle.commitsPerMin.toFixed(0)})`,
    );
    if (bothStatements.length) {
      const total = (rows: typeof bothStatements) => rows.reduce((sum, r) => sum + Number(r.calls), 0);
      line(
        '  database: statements (both)',
        `${total(bothStatements).toFixed(0)} /min (embedded alone: ${total(perStatement).toFixed(0)})`,
      );
    }
    return [
      figure('idle CPU, embedded stack (API process)', idle.cpu, '% core', {
        target: { of: 'value', op: '≤', bound: 3 },
      }),
      figure('idle CPU, production mode, per network', perNetwork, '% core', {
        target: { of: 'value', op: '≤', bound: 1 },
      }),
      figure('idle: fixture anvil ×3 CPU', idle.anvil, '% core'),
      figure('idle: fixture PostgreSQL CPU', idle.postgres, '% core'),
      figure('idle: transactions committed (embedded)', idle.commitsPerMin, '/min'),
      figure(
        'idle: rows written (embedded)',
        idle.writes.reduce((s, [, n]) => s + n, 0),
        '/min',
      ),
    ];
  } finally {
    await production?.stop();
    await embedded.stop();
    done();
  }
}

/** pg_stat_statements of the database: reset, or its busiest statements per minute since the reset. */
async function statements(url: string, what: 'reset' | 'read'): Promise<{ calls: string; query: string }[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    if (what === 'reset') {
      await client.query('create extension if not exists pg_stat_statements');
      await client.query('select pg_stat_statements_reset()');
      return [];
    }
    const { rows } = await client.query<{ calls: string; query: string }>(
      `select round(s.calls / greatest(extract(epoch from now() - i.stats_reset), 1) * 60)::text as calls,
              left(regexp_replace(s.query, '\\s+', ' ', 'g'), 90) as query
         from pg_stat_statements s, pg_stat_statements_info i
        where s.dbid = (select oid from pg_database where datname = current_database())
        order by s.calls desc`,
    );
    return rows;
  } finally {
    await client.end();
  }
}

runIfMain(import.meta.url, main);
