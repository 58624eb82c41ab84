import { runMigrations } from 'graphile-worker';
import { createOrm } from './orm.ts';

/**
 * Brings a database to the current schema: our migrations (committed in `migrations/`, never edited
 * once landed), then graphile-worker's own. Safe to run on every start and from several processes:
 * both migrators take a lock and skip what is applied.
 */
export async function migrate(databaseUrl: string): Promise<void> {
  const orm = await createOrm(databaseUrl, { poolMax: 2 });
  try {
    await orm.migrator.up();
  } finally {
    await orm.close(true);
  }
  await runMigrations({ connectionString: databaseUrl });
}
