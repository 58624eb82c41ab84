/**
 * `npm start` on the embedded stack, timed from the process's start to `devstack ready` in its log:
 * once on a fresh DATA_DIR (database created, chains deployed) and once more on the same directory
 * (the warm start a developer makes every day). Targets: fresh ≤ 25 s, warm ≤ 6 s. The baseline is
 * `node -e ''`, the floor of starting any process.
 *   npx tsx bench/startup.ts
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/db/embedded-postgres.ts';
import { type Figure, figure, runIfMain } from './report.ts';
import { ROOT, script } from './support.ts';

/** Longer than any start should take: a start still not ready then fails the bench. */
const GIVE_UP_MS = 180_000;

/** Starts `npm start` with `env`; resolves with the milliseconds to `devstack ready`, then stops it. */
async function timeStart(env: Record<string, string>): Promise<number> {
  const { file, args } = script('start');
  const t0 = performance.now();
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not ready after ${GIVE_UP_MS} ms:\n${log.slice(-2000)}`)),
        GIVE_UP_MS,
      );
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('"devstack ready"')) {
          clearTimeout(timer);
          resolve(performance.now() - t0);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}:\n${log.slice(-2000)}`));
      });
    });
  } finally {
    await stop(child);
  }
}

/** SIGTERM, as Ctrl-C would, and wait for the orderly shutdown (its chains and database stopped). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
  await exited;
  clearTimeout(timer);
}

export async function main(): Promise<Figure[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-startup-'));
  const env = {
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'info',
  };
  try {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '']);
    const floor = performance.now() - t0;
    const fresh = await timeStart(env);
    const warm = await timeStart(env);
    console.log(`npm start to "devstack ready" (embedded stack, ${os.cpus().length} cores)`);
    console.log(`  fresh DATA_DIR:             ${(fresh / 1000).toFixed(1)} s   (target ≤ 25 s)`);
    console.log(`  warm (the same DATA_DIR):   ${(warm / 1000).toFixed(1)} s   (target ≤ 6 s)`);
    console.log(`  node -e '' (the floor):     ${floor.toFixed(0)} ms`);
    return [
      figure('npm start, fresh DATA_DIR', fresh / 1000, 's', {
        baseline: floor / 1000,
        target: { of: 'value', op: '≤', bound: 25 },
      }),
      figure('npm start, warm (same DATA_DIR)', warm / 1000, 's', {
        baseline: floor / 1000,
        target: { of: 'value', op: '≤', bound: 6 },
      }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
