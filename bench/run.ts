/**
 * `npm run bench`: every benchmark in turn, each measuring its figures next to a baseline measured in
 * the same run, then one summary table (bench, figure, value, baseline, ratio, target, met / NOT met).
 *
 *   npm run bench [-- NAME ...] [--smoke] [--jobs N] [--json FILE]
 *
 * Each bench runs in a process of its own (`tsx bench/NAME.ts`), so one bench's leftovers cannot
 * touch the next, and one that overruns its time (5 minutes in a smoke run) is killed with everything
 * it started, reported, and the others still run; the exit code is then 1 and the last line names the
 * failed benches. `--json FILE` writes the rows (and the failures) for comparing two runs.
 *
 * `--smoke` runs every bench at small sizes (seconds each): its figures say nothing about speed, only
 * that each bench still runs and produces them; CI runs it so that a bench that breaks fails the day it
 * breaks. A smoke run takes two benches at a time (`--jobs`, default 2 there, 1 in a full run, whose
 * figures must not share the machine), each bench's output printed whole when it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FIGURES_FILE_ENV, type Figure, summaryTable } from './report.ts';

/** Every bench, in the order a full run takes them, with the arguments of a smoke run. */
const BENCHES: Record<string, string[]> = {
  http: ['--requests', '200', '--concurrency', '8'],
  gas: ['--batch', '10'],
  webhooks: ['--deliveries', '100', '--unloaded', '10'],
  follower: ['--payments', '5', '--blocks', '200', '--backfill', '50'],
  takeover: ['--payments', '6', '--pace', '200', '--kill-every', '1', '--kills', '1'],
  payouts: ['--payouts', '5', '--floor-runs', '1'],
  batch: ['--items', '5'],
  deposits: ['--addresses', '1000', '--blocks', '100', '--transfers', '200', '--reads', '10'],
  hosted: ['--sessions', '5', '--loads', '1'],
  cli: ['--runs', '2'],
  startup: [],
  idle: ['--settle', '1', '--window', '2', '--reuse'],
  soak: ['--minutes', '0.08', '--idle-minutes', '0.02', '--rate', '10', '--samples', '3', '--reuse'],
};

/** A bench still running after this long is killed and reported as failed; the run goes on. */
const GIVE_UP_S = { smoke: 300, full: 3600 };

const here = path.dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  options: { smoke: { type: 'boolean' }, json: { type: 'string' }, jobs: { type: 'string' } },
  allowPositionals: true,
});
const smoke = values.smoke ?? false;
const jobs = Math.max(1, Number(values.jobs ?? (smoke ? 2 : 1)));
const chosen = positionals.length ? positionals : Object.keys(BENCHES);
const limitS = smoke ? GIVE_UP_S.smoke : GIVE_UP_S.full;
const scratch = mkdtempSync(path.join(os.tmpdir(), 'bench-run-'));

interface Outcome {
  figures: Figure[];
  error?: string;
}

/** Runs one bench in its own process: its figures, or why there are none. */
function runBench(name: string): Promise<Outcome> {
  const file = path.join(here, `${name}.ts`);
  if (!(name in BENCHES) || !existsSync(file))
    return Promise.resolve({ figures: [], error: 'no such benchmark' });
  const figuresFile = path.join(scratch, `${name}.json`);
  const t0 = performance.now();
  // One at a time, its output streams as it runs; side by side, each bench's is printed whole at its end.
  const alone = jobs === 1;
  const output: Buffer[] = [];
  const header = `\n== ${name}${smoke ? ' (smoke)' : ''}`;
  if (alone) console.log(header);
  // The loader tsx started this process with (process.execArgv) runs the bench's TypeScript too.
  const child: ChildProcess = spawn(
    process.execPath,
    [...process.execArgv, file, ...(smoke ? BENCHES[name]! : [])],
    {
      env: { ...process.env, [FIGURES_FILE_ENV]: figuresFile },
      stdio: ['ignore', alone ? 'inherit' : 'pipe', alone ? 'inherit' : 'pipe'],
      // Its own process group: an overrun bench is killed with the nodes and servers it started.
      detached: true,
    },
  );
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  let overran = false;
  const timer = setTimeout(() => {
    overran = true;
    killGroup(child);
  }, limitS * 1000);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!alone) process.stdout.write(`${header}\n${Buffer.concat(output).toString()}`);
      const figures = existsSync(figuresFile)
        ? (JSON.parse(readFileSync(figuresFile, 'utf8')) as Figure[])
        : [];
      const error = overran
        ? `still running after ${limitS} s`
        : code !== 0
          ? `exited with ${signal ?? `code ${code}`}`
          : figures.length
            ? undefined
            : 'produced no figures';
      console.log(
        `== ${name}${error ? ` FAILED: ${error}` : ''}: ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      resolve({ figures, ...(error ? { error } : {}) });
    });
  });
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

const started = performance.now();
const outcomes = new Map<string, Outcome>();
const queue = [...chosen];
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift())
      outcomes.set(name, await runBench(name));
  }),
);
rmSync(scratch, { recursive: true, force: true });

// The summary in the run's order, whichever bench finished first.
const rows = chosen.flatMap((name) => outcomes.get(name)!.figures.map((f) => ({ ...f, bench: name })));
const failed = chosen.flatMap((name) => {
  const { error } = outcomes.get(name)!;
  return error ? [{ bench: name, error }] : [];
});
console.log(`\n== summary${smoke ? ' (smoke: sizes too small for the figures to mean anything)' : ''}`);
console.log(summaryTable(rows));
console.log(
  `\n${chosen.length} benches in ${((performance.now() - started) / 1000).toFixed(0)} s${jobs > 1 ? `, ${jobs} at a time` : ''}`,
);
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ smoke, at: new Date().toISOString(), rows, failed }, null, 2)}\n`,
  );
}
if (failed.length) {
  console.error(`FAILED: ${failed.map((f) => `${f.bench} (${f.error})`).join('; ')}`);
  process.exit(1);
}
process.exit(0);
