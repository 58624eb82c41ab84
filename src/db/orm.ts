import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntitySchema } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM } from '@mikro-orm/postgresql';

export type { EntityManager } from '@mikro-orm/postgresql';
export type Orm = MikroORM;

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** How long a request or job waits for a pooled connection before the database counts as unavailable. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface OrmOptions {
  /** The entities to manage (src/modules/index.ts has them all); none for migrations alone. */
  // biome-ignore lint/suspicious/noExplicitAny: entity schemas of every shape
  entities?: readonly EntitySchema<any, any>[];
  poolMax?: number;
  debug?: boolean;
  /** Longest a single statement may run (PostgreSQL `statement_timeout`); unset for migrations. */
  statementTimeoutMs?: number;
  /** Called once per statement the ORM sends (benchmarks count round trips with it). */
  onQuery?: (message: string) => void;
}

/** ORM settings shared by the service, the migration scripts and the tests. */
export function ormConfig(databaseUrl: string, options: OrmOptions = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: [...(options.entities ?? [])],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    // The global EntityManager is never used: every request and job forks its own.
    allowGlobalContext: false,
    debug: options.onQuery ? ['query'] : (options.debug ?? false),
    ...(options.onQuery ? { logger: options.onQuery, colors: false } : {}),
    pool: { min: 0, max: options.poolMax ?? 10 },
    // Handed to the pg pool: a saturated pool or a blocked statement ends in a 503, never a hang.
    driverOptions: {
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    },
    migrations: {
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      glob: '!(*.d).{js,ts}',
      transactional: true,
      allOrNothing: true,
      silent: true,
      // Diff against the migrated schema itself, not a shared snapshot file (no merge conflicts).
      snapshot: false,
      emit: 'ts',
      fileName: (timestamp, name) => `Migration${timestamp}${name ? `_${name}` : ''}`,
    },
  });
}

export function createOrm(databaseUrl: string, options?: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, options));
}
