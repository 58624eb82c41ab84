import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ConfigError, parseSecretsKey } from '../config.ts';
import { type EmbeddedDatabase, embeddedUrl, startEmbeddedPostgres } from '../db/embedded-postgres.ts';

const DATABASE = 'gateway';
/** Fixed so a restart finds the same server; override with EMBEDDED_PG_PORT if it is taken. */
const DEFAULT_PORT = 54329;

/**
 * The embedded PostgreSQL under `<dataDir>/pg`, with the service database created once. The database
 * belongs to its data directory: a server found running on the port serves another directory, or a
 * database carries another directory's identity (`<dataDir>/instance`, recorded as the database's
 * comment), and start-up stops with a message instead of running on a database that is not its own
 * (whose secrets another SECRETS_KEY sealed).
 */
export async function startDevDatabase(
  dataDir: string,
  port = DEFAULT_PORT,
): Promise<{ url: string; server: EmbeddedDatabase }> {
  const pgDir = path.resolve(dataDir, 'pg');
  const elsewhere = runningPort(pgDir);
  if (elsewhere !== undefined && elsewhere !== port) {
    throw new ConfigError(
      `the embedded database of ${path.resolve(dataDir)} already runs on port ${elsewhere}: ` +
        `set EMBEDDED_PG_PORT=${elsewhere} to use it`,
    );
  }
  // A running `npm start` already serves this data folder (the CLI then shares it).
  const server =
    (await runningServer(port, pgDir)) ??
    (await startEmbeddedPostgres({ dir: pgDir, port, persistent: true }));
  const identity = instanceId(dataDir);
  const client = new pg.Client(server.adminUrl);
  await client.connect();
  try {
    const [row] = (
      await client.query<{ comment: string | null }>(
        'select shobj_description(oid, $2) as comment from pg_database where datname = $1',
        [DATABASE, 'pg_database'],
      )
    ).rows;
    if (!row) {
      await client.query(`create database ${DATABASE}`);
      await client.query(`comment on database ${DATABASE} is '${IDENTITY_PREFIX}${identity}'`);
    } else if (row.comment?.startsWith(IDENTITY_PREFIX) && row.comment !== `${IDENTITY_PREFIX}${identity}`) {
      throw new ConfigError(
        `the embedded database on port ${port} belongs to another data directory than ${path.resolve(dataDir)}; ` +
          'set EMBEDDED_PG_PORT to a free port for this DATA_DIR',
      );
    } else if (!row.comment) {
      await client.query(`comment on database ${DATABASE} is '${IDENTITY_PREFIX}${identity}'`);
    }
  } catch (error) {
    await server.stop().catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
  return { url: server.urlFor(DATABASE), server };
}

const IDENTITY_PREFIX = 'cryptopay-gateway data directory ';

/** The port of the server running on `pgDir` now (its live postmaster.pid), if any. */
function runningPort(pgDir: string): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(path.join(pgDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's (the server runs as `postgres` when we are root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  const port = Number(lines[3]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/** This data directory's identity: generated once into `<dataDir>/instance`. */
function instanceId(dataDir: string): string {
  const file = path.join(dataDir, 'instance');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(16).toString('hex')}\n`);
  }
  return readFileSync(file, 'utf8').trim();
}

/** The embedded stack's SECRETS_KEY: generated once into `<dataDir>/secrets.key`. */
export function devSecretsKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
  }
  return parseSecretsKey(readFileSync(file, 'utf8').trim());
}

/** The server already running on `port`, when it serves `pgDir`; another directory's is refused. */
async function runningServer(port: number, pgDir: string): Promise<EmbeddedDatabase | undefined> {
  const urlFor = (database: string) => embeddedUrl(port, database);
  const client = new pg.Client({ connectionString: urlFor('postgres'), connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
  } catch {
    return undefined;
  }
  let serves: string;
  try {
    serves = (await client.query<{ data_directory: string }>('show data_directory')).rows[0]!.data_directory;
  } finally {
    await client.end();
  }
  if (path.resolve(serves) !== pgDir) {
    throw new ConfigError(
      `port ${port} already serves the embedded database of ${path.dirname(serves)}, not of ${path.dirname(pgDir)}; ` +
        'set EMBEDDED_PG_PORT to a free port for this DATA_DIR',
    );
  }
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    createDatabase: () => Promise.reject(new Error('not supported on a shared server')),
    stop: async () => {},
  };
}
