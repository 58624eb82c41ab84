/**
 * `npm start`: the whole service. With no DATABASE_URL it runs on embedded defaults (D10): embedded
 * PostgreSQL, local anvil chains for `eth` and `bsc`, the Tron facade, deployed contracts, a demo
 * merchant and operator token, and writes `.data/devstack.json`. With DATABASE_URL and NETWORKS_FILE
 * it runs against real infrastructure and starts nothing embedded.
 */
import path from 'node:path';
import { createApp } from './app.ts';
import { loadNetworkFile, type NetworkFile } from './chains/networks.ts';
import { type Config, ConfigError, loadConfig, requireReadableFile } from './config.ts';
import { migrate } from './db/migrate.ts';
import { consolePages } from './http/console.ts';
import { webPages } from './http/pages.ts';
import { ListenError, startHttpServer } from './http/server.ts';
import { createLogger } from './lib/logger.ts';
import { stopOnSignals } from './lib/shutdown.ts';
import { settlementCsvPage } from './modules/report/index.ts';
import type { Worker } from './worker/runner.ts';
import { startWorker } from './worker/runner.ts';

/**
 * The embedded development stack (PostgreSQL, anvil, the Tron facade, demo provisioning), loaded only
 * when it runs: a production process never imports it, and the image installs none of its packages.
 */
async function devStack() {
  const [chains, database, provision, inbox] = await Promise.all([
    import('./devstack/chains.ts'),
    import('./devstack/database.ts'),
    import('./devstack/provision.ts'),
    import('./devstack/webhook-inbox.ts'),
  ]);
  return {
    startDevChains: chains.startDevChains,
    startDevDatabase: database.startDevDatabase,
    devSecretsKey: database.devSecretsKey,
    provisionDemo: provision.provisionDemo,
    webhookInbox: inbox.webhookInbox,
  };
}
type DevStack = Awaited<ReturnType<typeof devStack>>;

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const stops: Array<() => Promise<unknown>> = [];
  let networks: NetworkFile;
  let devChains: Awaited<ReturnType<DevStack['startDevChains']>> | undefined;
  let dev: DevStack | undefined;

  // In order: HTTP, worker, app, then what the embedded stack started (each step logged if it fails).
  stopOnSignals(logger, config.shutdownTimeoutMs, async () => {
    for (const stop of stops)
      await stop().catch((error: unknown) => logger.error('shutdown step failed', { error }));
  });

  try {
    await start();
  } catch (error) {
    // Whatever did start (embedded database, chains) is stopped before the process exits.
    for (const stop of stops) await stop().catch(() => {});
    throw error;
  }

  async function start() {
    if (config.embedded) {
      logger.info('no DATABASE_URL: starting the embedded development stack', { dataDir: config.dataDir });
      dev = await devStack();
      const db = await dev.startDevDatabase(config.dataDir, config.embeddedPgPort);
      stops.push(() => db.server.stop());
      config = {
        ...config,
        databaseUrl: db.url,
        secretsKey: config.secretsKey ?? dev.devSecretsKey(config.dataDir),
      };
    }
    if (config.networksFile) {
      requireReadableFile('NETWORKS_FILE', config.networksFile, 'a readable JSON network file');
      networks = loadNetworkFile(config.networksFile);
    } else {
      dev ??= await devStack();
      devChains = await dev.startDevChains(path.join(config.dataDir, 'chains'), logger);
      stops.push(() => devChains!.stop());
      networks = devChains.networks;
    }
    if (!config.secretsKey) throw new ConfigError('SECRETS_KEY is required outside the embedded stack');

    await migrate(config.databaseUrl!);
    const app = await createApp({ config, networks, logger });
    stops.unshift(() => app.close());
    const web = [...webPages(app), ...consolePages(app), settlementCsvPage(app)];
    const pages = dev && devChains ? [...web, dev.webhookInbox(app)] : web;
    const http = await startHttpServer(app, { pages });
    stops.unshift(() => http.close());
    const baseUrl = config.publicBaseUrl ?? `http://localhost:${new URL(http.url).port}`;
    let worker: Worker | undefined;
    if (config.runWorker) {
      worker = await startWorker(app);
      stops.unshift(() => worker!.stop());
    }
    if (dev && devChains) {
      const devstack = await dev.provisionDemo(app, config.dataDir, devChains.chains, baseUrl);
      logger.info('devstack ready', { devstack });
    }
    logger.info('listening', {
      url: baseUrl,
      graphql: `${baseUrl}/graphql`,
      console: `${baseUrl}/console`,
      worker: Boolean(worker),
    });
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else if (error instanceof ListenError) console.error(`startup failed: ${error.message}`);
  else if (
    (error as { code?: string }).code === 'ECONNREFUSED' ||
    (error as { code?: string }).code === 'ENOTFOUND'
  ) {
    console.error(
      `startup failed: cannot reach the database named by DATABASE_URL (${(error as Error).message})`,
    );
  } else console.error('startup failed:', error);
  process.exit(1);
});
