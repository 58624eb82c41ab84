/**
 * Generates the next migration from the difference between the entities and the migrated schema:
 * starts a throw-away embedded PostgreSQL, applies the committed migrations, diffs, writes the new
 * file into `migrations/`. Usage: npm run migration:create -- <name>
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { createOrm } from '../src/db/orm.ts';
import { entities } from '../src/modules/index.ts';

const name = process.argv[2];
const dir = mkdtempSync(path.join(os.tmpdir(), 'migration-'));
const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
try {
  const orm = await createOrm(db.adminUrl, { entities });
  await orm.migrator.up();
  const result = await orm.migrator.create(undefined, false, false, name);
  console.log(
    result.fileName ? `created migrations/${result.fileName}` : 'schema is up to date: nothing to create',
  );
  await orm.close(true);
} finally {
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}
