import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.ts';
import { migrate } from '../../src/db/migrate.ts';

export const TEMPLATE_DB = 'gateway_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

/**
 * Once per `vitest run`: one embedded PostgreSQL for the whole run and a template database with every
 * migration applied. Each test file clones its own database from the template (see db.ts), which
 * takes milliseconds and keeps files independent while they run in parallel.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
  const db = await startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false });
  const templateUrl = await db.createDatabase(TEMPLATE_DB);
  await migrate(templateUrl);
  project.provide('pgAdminUrl', db.adminUrl);
  project.provide('pgTemplate', TEMPLATE_DB);
  return async () => {
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
