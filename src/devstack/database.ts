import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { parseSecretsKey } from '../config.ts';
import { type EmbeddedDatabase, embeddedUrl, startEmbeddedPostgres } from '../db/embedded-postgres.ts';

const DATABASE = 'gateway';
/** Fixed so a restart finds the same server; override with EMBEDDED_PG_PORT if it is taken. */
const DEFAULT_PORT = 54329;

/** The embedded PostgreSQL under `<dataDir>/pg`, with the service database created once. */
export async function startDevDatabase(dataDir: string): Promise<{ url: string; server: EmbeddedDatabase }> {
  const port = Number(process.env.EMBEDDED_PG_PORT ?? DEFAULT_PORT);
  // A running `npm start` already serves this data folder (the CLI then shares it).
  const server =
    (await runningServer(port)) ??
    (await startEmbeddedPostgres({ dir: path.join(dataDir, 'pg'), port, persistent: true }));
  const client = new pg.Client(server.adminUrl);
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
  return { url: server.urlFor(DATABASE), server };
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

async function runningServer(port: number): Promise<EmbeddedDatabase | undefined> {
  const urlFor = (database: string) => embeddedUrl(port, database);
  const client = new pg.Client({ connectionString: urlFor('postgres'), connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
  } catch {
    return undefined;
  }
  await client.end();
  return {
    adminUrl: urlFor('postgres'),
    urlFor,
    createDatabase: () => Promise.reject(new Error('not supported on a shared server')),
    stop: async () => {},
  };
}
