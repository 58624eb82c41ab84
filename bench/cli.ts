/**
 * The operator CLI against a database that is not embedded: wall time of `npm run cli --
 * merchant:create` (the launcher package.json runs, without npm's own start-up in front), median of
 * `--runs`, next to `node -e ''`, the floor of starting any Node process. Target: ≤ 1.5 s.
 *   npx tsx bench/cli.ts [--runs 10]
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { percentile, ROOT, script } from './support.ts';

const run = promisify(execFile);

/** CPU ms of this process's finished children (user + system, Linux /proc; 0 elsewhere). */
function childrenCpu(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/** Wall and CPU milliseconds of one run of `file args`; throws when it fails. */
async function timed(file: string, args: string[], env: NodeJS.ProcessEnv) {
  const t0 = performance.now();
  const c0 = childrenCpu();
  await run(file, args, { cwd: ROOT, env });
  return { ms: performance.now() - t0, cpu: childrenCpu() - c0 };
}

export async function main(argv = process.argv.slice(2)): Promise<Figure[]> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string' } } });
  const runs = Number(values.runs ?? 10);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-cli-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  try {
    const url = await db.createDatabase('bench');
    await migrate(url);
    const networksFile = path.join(dir, 'networks.json');
    writeFileSync(
      networksFile,
      JSON.stringify({ networks: [{ id: 'eth', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] }] }),
    );
    const env = {
      ...process.env,
      DATABASE_URL: url,
      NETWORKS_FILE: networksFile,
      SECRETS_KEY: randomBytes(32).toString('hex'),
    };
    const cliScript = script('cli');
    const command = [...cliScript.args, 'merchant:create', '--name', 'Bench'];
    const node = path.join(ROOT, 'node_modules/.bin/node');
    await timed(cliScript.file, command, env); // warm-up: the operating system's file cache
    const cliMs: number[] = [];
    const cliCpu: number[] = [];
    const floorMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const cli = await timed(cliScript.file, command, env);
      cliMs.push(cli.ms);
      cliCpu.push(cli.cpu);
      floorMs.push((await timed(node, ['-e', ''], env)).ms);
    }
    cliMs.sort((a, b) => a - b);
    cliCpu.sort((a, b) => a - b);
    floorMs.sort((a, b) => a - b);
    const median = percentile(cliMs, 0.5);
    const floor = percentile(floorMs, 0.5);
    console.log(
      `operator CLI, merchant:create against PostgreSQL (median of ${runs}, ${os.cpus().length} cores)`,
    );
    console.log(
      `  npm run cli -- merchant:create   ${median.toFixed(0)} ms   (target ≤ 1500 ms; CPU ${percentile(cliCpu, 0.5).toFixed(0)} ms, load ${os.loadavg()[0]!.toFixed(1)})`,
    );
    console.log(`  node -e '' (the floor)           ${floor.toFixed(0)} ms`);
    return [
      figure('merchant:create, median', median, 'ms', {
        baseline: floor,
        target: { of: 'value', op: '≤', bound: 1500 },
      }),
    ];
  } finally {
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
