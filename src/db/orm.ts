import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM } from '@mikro-orm/postgresql';
import { entities } from './entities.ts';

export type { EntityManager } from '@mikro-orm/postgresql';
export type Orm = MikroORM;

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** ORM settings shared by the service, the migration scripts and the tests. */
export function ormConfig(databaseUrl: string, options: { poolMax?: number; debug?: boolean } = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    // The global EntityManager is never used: every request and job forks its own.
    allowGlobalContext: false,
    debug: options.debug ?? false,
    pool: { min: 0, max: options.poolMax ?? 10 },
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

export function createOrm(
  databaseUrl: string,
  options?: { poolMax?: number; debug?: boolean },
): Promise<MikroORM> {
  return MikroORM.init(ormConfig(databaseUrl, options));
}
