/**
 * The service as `npm start` runs it, for the cost-of-running benches (idle, soak): a child process
 * on the embedded stack (or on given infrastructure), its log read for readiness, and the CPU of it,
 * of its fixture processes (anvil, PostgreSQL) and of the database's transactions, read from /proc
 * and pg_stat_database rather than from inside the process, so the measurement costs it nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ROOT } from './support.ts';

/** A running service process. */
export interface Service {
  pid: number;
  child: ChildProcess;
  /** Everything it logged so far (stderr), and its stdout when asked for (`--trace-gc`). */
  log(): string;
  stdout(): string;
  /** The `devstack ready` line's file (embedded stack only). */
  devstack?: DevstackFile;
  stop(): Promise<void>;
}

export interface DevstackFile {
  base_url: string;
  operator_token: string;
  merchant: { id: string; api_key: string; api_secret: string };
  players: { address: string; private_key: string }[];
  networks: Record<
    string,
    {
      rpc_url: string;
      evm_rpc_url?: string;
      chain_id: number;
      payment_router?: string;
      tokens: Record<string, { address: string; decimals: number }>;
    }
  >;
}

const GIVE_UP_MS = 180_000;

/**
 * The DATA_DIR of a bench's embedded stack: a fresh one (removed by `done`), or with `reuse` (smoke
 * runs) one kept between runs of this checkout and bench, so only the first run pays for creating the
 * database and deploying the contracts (a warm start is seconds, a fresh one tens of seconds).
 */
export function stackDir(reuse: boolean, prefix: string): { dir: string; done(): void } {
  if (!reuse) {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    return { dir, done: () => rmSync(dir, { recursive: true, force: true }) };
  }
  const checkout = createHash('sha256').update(ROOT).digest('hex').slice(0, 8);
  // One per bench: a smoke run takes two benches at a time, and two services on one DATA_DIR collide.
  return { dir: path.join(os.tmpdir(), `cryptopay-${prefix}${checkout}`), done: () => {} };
}

/**
 * Starts `node [nodeArgs] --import tsx src/main.ts` (the `npm start` program) with `env`, and resolves
 * once its log says `ready` (the embedded stack's `devstack ready`, else `listening`).
 */
export async function startService(
  env: Record<string, string>,
  options: { nodeArgs?: string[]; ready?: string } = {},
): Promise<Service> {
  const child = spawn(
    path.join(ROOT, 'node_modules/.bin/node'),
    [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/main.ts'],
    { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const ready = options.ready ?? '"devstack ready"';
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not ready after ${GIVE_UP_MS} ms:\n${log.slice(-2000)}`)),
      GIVE_UP_MS,
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const found = log.split('\n').find((l) => l.includes(ready));
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}:\n${log.slice(-2000)}`));
    });
  });
  const file = (JSON.parse(line) as { devstack?: string }).devstack;
  return {
    pid: child.pid!,
    child,
    log: () => log,
    stdout: () => out,
    ...(file ? { devstack: JSON.parse(readFileSync(file, 'utf8')) as DevstackFile } : {}),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const TICKS_PER_S = 100;

function stat(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) a process has used; with `reaped`, also that of its children that have
 * exited and been waited for (PostgreSQL's backends come and go: a backend's CPU otherwise vanishes
 * from a sum of the live processes when it exits, and a window's difference can go negative).
 */
export function cpuSeconds(pid: number, reaped = false): number {
  const f = stat(pid);
  if (!f) return 0;
  const own = Number(f[11]) + Number(f[12]);
  return (reaped ? own + Number(f[13]) + Number(f[14]) : own) / TICKS_PER_S;
}

/** Resident memory of a process, MB. */
export function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Every descendant of `root` with its command line. */
export function descendants(root: number): { pid: number; cmd: string }[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = stat(Number(name));
    if (f) children.set(Number(f[1]), [...(children.get(Number(f[1])) ?? []), Number(name)]);
  }
  const out: { pid: number; cmd: string }[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {}
    out.push({ pid, cmd });
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU seconds of the service's fixture processes: its anvil nodes and its PostgreSQL server. */
export function fixtureCpu(root: number): { anvil: number; postgres: number; anvilRssMb: number } {
  let anvil = 0;
  let postgres = 0;
  let anvilRssMb = 0;
  for (const p of descendants(root)) {
    // The guards (`sh -c … anvil-guard …`) carry the program's name too: count the program only.
    if (p.cmd.startsWith('sh ')) continue;
    if (/\/anvil /.test(p.cmd)) {
      anvil += cpuSeconds(p.pid);
      anvilRssMb += rssMb(p.pid);
    } else if (/postgres/.test(p.cmd)) postgres += cpuSeconds(p.pid, true);
  }
  return { anvil, postgres, anvilRssMb };
}

/** Committed transactions of a database and rows it wrote (inserted, updated, deleted), per table. */
export async function dbCounters(url: string): Promise<{ commits: number; writes: Map<string, number> }> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const [db] = (
      await client.query<{ n: string }>(
        'select xact_commit::text as n from pg_stat_database where datname = current_database()',
      )
    ).rows;
    const tables = await client.query<{ name: string; n: string }>(
      `select relname as name, (n_tup_ins + n_tup_upd + n_tup_del)::text as n from pg_stat_user_tables`,
    );
    return { commits: Number(db!.n), writes: new Map(tables.rows.map((r) => [r.name, Number(r.n)])) };
  } finally {
    await client.end();
  }
}

/** Rows written per minute between two counters, by table, busiest first. */
export function writesPerMinute(
  a: Map<string, number>,
  b: Map<string, number>,
  seconds: number,
): [string, number][] {
  return [...b]
    .map(([name, n]): [string, number] => [name, ((n - (a.get(name) ?? 0)) / seconds) * 60])
    .filter(([, n]) => n > 0)
    .sort((x, y) => y[1] - x[1]);
}
