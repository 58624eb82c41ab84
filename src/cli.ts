/**
 * Operator CLI: `npm run cli -- <command> [options]`, printing JSON. Runs against DATABASE_URL, or
 * against the embedded stack's database when DATABASE_URL is unset (start it with `npm start` once).
 * The commands are a table (src/cli/commands.ts); `npm run cli` alone prints them.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from './app.ts';
import { loadNetworkFile } from './chains/networks.ts';
import { findCommand, needOf, usage } from './cli/commands.ts';
import { ConfigError, loadConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { isAppError } from './errors.ts';
import { createLogger } from './lib/logger.ts';

async function main(argv: string[]) {
  const [name, ...rest] = argv;
  const command = findCommand(name);
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
    const { devSecretsKey, startDevDatabase } = await import('./devstack/database.ts');
    const db = await startDevDatabase(config.dataDir, config.embeddedPgPort);
    stopDb = () => db.server.stop();
    config = {
      ...config,
      databaseUrl: db.url,
      secretsKey: config.secretsKey ?? devSecretsKey(config.dataDir),
    };
  }
  // Embedded: the network file `npm start` wrote for its local chains.
  const networksFile = config.networksFile ?? path.join(config.dataDir, 'networks.json');
  if (!config.networksFile && !existsSync(networksFile)) {
    throw new ConfigError(
      `${networksFile} not found: run npm start once, or set DATABASE_URL and NETWORKS_FILE`,
    );
  }
  const networks = loadNetworkFile(networksFile);
  try {
    await migrate(config.databaseUrl!);
    const app = await createApp({ config, networks, logger: createLogger('error') });
    try {
      const result = await command.run({ app, em: app.fork(), values, need });
      console.log(JSON.stringify(result, null, 2));
    } finally {
      await app.close();
    }
  } finally {
    await stopDb?.();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else if (isAppError(error))
    console.error(JSON.stringify({ error: { code: error.publicCode, message: error.message } }));
  else console.error(error);
  process.exit(1);
});
