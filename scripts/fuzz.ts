/**
 * `npm run fuzz`: 10 000 generated requests (test/support/fuzz.ts) against the real HTTP server on a
 * throwaway embedded PostgreSQL. Prints "<n> cases, <m> server errors" and exits non-zero on any
 * failure, with fast-check's report (seed and path) to replay it.
 * Options: FUZZ_CASES (default 10000), FUZZ_SEED (default 20261123; `random` for a fresh one),
 * FUZZ_TRACE=<path> (print every answer of that route).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { runFuzz, startFuzzTarget } from '../test/support/fuzz.ts';

const cases = Number(process.env.FUZZ_CASES ?? 10_000);
const seed =
  process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? 20261123);

const dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-fuzz-'));
const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
let failed = true;
try {
  const url = await db.createDatabase('fuzz');
  await migrate(url);
  const target = await startFuzzTarget(url);
  try {
    const started = Date.now();
    const report = await runFuzz(target, { numRuns: cases, seed });
    const statuses = Object.entries(report.byStatus)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ');
    console.log(`seed ${seed}: ${statuses} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    const reached = Object.entries(report.reached).map(([route, n]) => `${route} ${n}`);
    console.log(`reached the resolver: ${reached.join(', ')}`);
    console.log(`${report.cases} cases, ${report.serverErrors} server errors`);
    if (report.failure) console.error(report.failure);
    failed = Boolean(report.failure) || report.serverErrors > 0;
  } finally {
    await target.close();
  }
} finally {
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
