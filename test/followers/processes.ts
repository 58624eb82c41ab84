import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionFixture } from '../session/support.ts';

/** A worker process (test/followers/worker-process.ts) on a session fixture's database and chain. */
export interface WorkerProcess {
  owner: string;
  child: ChildProcess;
  exited: Promise<unknown>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function spawnWorker(
  f: Pick<SessionFixture, 't' | 'networks' | 'startBlock'>,
  owner: string,
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'worker-'));
  const networksFile = path.join(dir, 'networks.json');
  writeFileSync(networksFile, JSON.stringify(f.networks));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./worker-process.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: f.t.config.databaseUrl,
        NETWORKS_FILE: networksFile,
        SECRETS_KEY: f.t.config.secretsKey!.toString('hex'),
        FOLLOWER_OWNER: owner,
        START_BLOCK: String(f.startBlock),
        WORKER_CONCURRENCY: '2',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker ${owner} exited with ${code}`)));
  });
  return {
    owner,
    child,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/** The process that leads `network` now, by the owner it recorded. */
export async function leaderOf(f: SessionFixture, network = 'eth'): Promise<string | undefined> {
  const [row] = await f.t.app
    .fork()
    .execute<{ owner: string }[]>('select owner from chain_followers where network = ?', [network]);
  return row?.owner;
}
