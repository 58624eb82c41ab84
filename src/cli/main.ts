/**
 * The operator CLI's program (src/cli.ts starts it): `npm run -s cli -- <command> [options]`, printing JSON. Runs against DATABASE_URL and
 * NETWORKS_FILE (with the gateway's SECRETS_KEY), or against the embedded stack's database when
 * DATABASE_URL is unset (start it with `npm start` once). The commands are a table
 * (src/cli/commands.ts); `help` lists them, `<command> --help` tells one.
 *
 * Answering in about a second is the point of how this file loads things: the configuration first (a
 * bad one ends in one line), then only what the command runs (src/cli/context.ts); no chain is asked
 * anything unless the command reads one.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';
import { isAppError } from '../errors.ts';
import { commandHelp, findCommand, help, needOf, needsSecretsKey, usage } from './commands.ts';

async function main(argv: string[]) {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    console.log(help());
    return;
  }
  const command = findCommand(name);
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(commandHelp(command));
    return;
  }
  let values: ReturnType<typeof parseArgs>['values'];
  try {
    ({ values } = parseArgs({ args: rest, options: command.options }));
  } catch (error) {
    throw new ConfigError(`${command.name}: ${(error as Error).message}\n${usage()}`);
  }
  const need = needOf(command.name, values);
  if ('standalone' in command) {
    console.log(JSON.stringify(await command.run({ values, need }), null, 2));
    return;
  }

  let config = loadConfig({ LOG_LEVEL: 'error', ...process.env });
  let stopDb: (() => Promise<void>) | undefined;
  if (config.embedded) {
    // The embedded stack's code is loaded only here: a production CLI never imports it.
    const { devSecretsKey, startDevDatabase } = await import('../devstack/database.ts');
    const db = await startDevDatabase(config.dataDir, config.embeddedPgPort);
    stopDb = () => db.server.stop();
    config = {
      ...config,
      databaseUrl: db.url,
      secretsKey: config.secretsKey ?? devSecretsKey(config.dataDir),
    };
  }
  try {
    if (!config.secretsKey && needsSecretsKey(command)) {
      throw new ConfigError(
        `${command.name}: SECRETS_KEY is required with DATABASE_URL: the gateway's key (64 hex characters or base64, or SECRETS_KEY_FILE), which seals merchants' API secrets`,
      );
    }
    // Embedded: the network file `npm start` wrote for its local chains.
    const networksFile = config.networksFile ?? path.join(config.dataDir, 'networks.json');
    if (!existsSync(networksFile)) {
      throw new ConfigError(
        config.networksFile
          ? `Invalid configuration: NETWORKS_FILE: no such file: ${networksFile}`
          : `${networksFile} not found: run npm start once, or set DATABASE_URL and NETWORKS_FILE`,
      );
    }
    const [{ loadNetworkFile }, { cliContext }, { createLogger }] = await Promise.all([
      import('../chains/networks.ts'),
      import('./context.ts'),
      import('../lib/logger.ts'),
    ]);
    const networks = loadNetworkFile(networksFile);
    const app = await cliContext({
      config,
      networks,
      logger: createLogger('error'),
      ...(command.services ? { services: command.services } : {}),
    });
    try {
      await migrateIfBehind(app.fork(), config.databaseUrl!);
      const result = await command.run({ app, em: app.fork(), values, need });
      console.log(JSON.stringify(result, null, 2));
    } finally {
      await app.close();
    }
  } finally {
    await stopDb?.();
  }
}

/**
 * Brings the database to this code's schema when it is behind (a CLI newer than the running gateway,
 * or a database nothing has started on yet); when it is current, as it is whenever the gateway of this
 * version has started, that costs one query instead of loading the migrators.
 */
async function migrateIfBehind(em: EntityManager, databaseUrl: string): Promise<void> {
  const { MIGRATIONS_DIR } = await import('../db/orm.ts');
  const shipped = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^Migration.*\.ts$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => f.replace(/\.ts$/, ''));
  const applied = await em
    .execute<{ name: string }[]>('select name from mikro_orm_migrations')
    .then((rows) => new Set(rows.map((r) => r.name.replace(/\.(ts|js)$/, ''))))
    .catch(() => new Set<string>());
  if (shipped.every((m) => applied.has(m))) return;
  await (await import('../db/migrate.ts')).migrate(databaseUrl);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else if (isAppError(error))
    console.error(JSON.stringify({ error: { code: error.publicCode, message: error.message } }));
  else if (['ECONNREFUSED', 'ENOTFOUND', '28P01', '3D000'].includes((error as { code?: string }).code ?? ''))
    console.error(`cannot reach the database named by DATABASE_URL: ${(error as Error).message}`);
  else console.error(error);
  process.exit(1);
});
