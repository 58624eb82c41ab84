/**
 * `npm run bench`: every benchmark in turn, each measuring its figures next to a baseline measured in
 * the same run, then one summary table (bench, figure, value, baseline, ratio, target, met / NOT met).
 *
 *   npm run bench [-- NAME ...] [--smoke] [--json FILE]
 *
 * `--smoke` runs every bench at small sizes (seconds each): its figures say nothing about speed, only
 * that each bench still runs and produces them; CI runs it so that a bench that breaks fails the day it
 * breaks. A bench that throws, returns no figures or overruns its time (5 minutes in a smoke run) is
 * reported and the others still run; the exit code is then 1 and the last line names the failed
 * benches. `--json FILE` writes the rows (and the failures) for comparing two runs.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Figure, summaryTable } from './report.ts';

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

/** A bench still running after this long is reported as failed and the run goes on without it. */
const GIVE_UP_S = { smoke: 300, full: 3600 };

const here = path.dirname(fileURLToPath(import.meta.url));
const { values, positionals } = parseArgs({
  options: { smoke: { type: 'boolean' }, json: { type: 'string' } },
  allowPositionals: true,
});
const chosen = positionals.length ? positionals : Object.keys(BENCHES);
const rows: Figure[] = [];
const failed: { bench: string; error: string }[] = [];
const started = performance.now();

for (const name of chosen) {
  const file = path.join(here, `${name}.ts`);
  const t0 = performance.now();
  console.log(`\n== ${name}${values.smoke ? ' (smoke)' : ''}`);
  try {
    if (!(name in BENCHES) || !existsSync(file)) throw new Error('no such benchmark');
    const mod = (await import(pathToFileURL(file).href)) as { main: (argv?: string[]) => Promise<Figure[]> };
    const limit = values.smoke ? GIVE_UP_S.smoke : GIVE_UP_S.full;
    let timer: NodeJS.Timeout | undefined;
    const figures = await Promise.race([
      mod.main(values.smoke ? BENCHES[name] : []),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running after ${limit} s`)), limit * 1000);
      }),
    ]).finally(() => clearTimeout(timer));
    if (!figures?.length) throw new Error('produced no figures');
    rows.push(...figures.map((f) => ({ ...f, bench: name })));
  } catch (error) {
    console.error(`== ${name} FAILED:`, error);
    failed.push({ bench: name, error: error instanceof Error ? error.message : String(error) });
  }
  console.log(`== ${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

console.log(
  `\n== summary${values.smoke ? ' (smoke: sizes too small for the figures to mean anything)' : ''}`,
);
console.log(summaryTable(rows));
console.log(`\n${chosen.length} benches in ${((performance.now() - started) / 1000).toFixed(0)} s`);
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ smoke: Boolean(values.smoke), at: new Date().toISOString(), rows, failed }, null, 2)}\n`,
  );
}
if (failed.length) {
  console.error(`FAILED: ${failed.map((f) => `${f.bench} (${f.error.split('\n')[0]})`).join('; ')}`);
  process.exit(1);
}
process.exit(0);
