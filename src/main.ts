/**
 * `npm start`: the whole service. With no DATABASE_URL it runs on embedded defaults (D10): embedded
 * PostgreSQL, local anvil chains for `eth` and `bsc`, the Tron facade, deployed contracts, a demo
 * merchant and operator token, and writes `.data/devstack.json`. With DATABASE_URL and NETWORKS_FILE
 * it runs against real infrastructure and starts nothing embedded.
 */
import { enableCompileCache, flushCompileCache } from 'node:module';
import path from 'node:path';
import type { NetworkFile } from './chains/networks.ts';
import { type Config, ConfigError, loadConfig, requireReadableFile } from './config.ts';
import { createLogger } from './lib/logger.ts';
import { stopOnSignals } from './lib/shutdown.ts';
import { recordWebhookRule } from './modules/merchant/webhook-rule.ts';
import type { Worker } from './worker/runner.ts';

/**
 * The service's own code. Loading it takes seconds of CPU, so start-up begins loading it before
 * anything else and meanwhile starts the embedded database and chains (processes of their own).
 */
async function serviceCode() {
  const [app, networks, migrate, pages, consoles, report, server, runner] = await Promise.all([
    import('./app.ts'),
    import('./chains/networks.ts'),
    import('./db/migrate.ts'),
    import('./http/pages.ts'),
    import('./http/console.ts'),
    import('./modules/report/index.ts'),
    import('./http/server.ts'),
    import('./worker/runner.ts'),
  ]);
  return {
    createApp: app.createApp,
    loadNetworkFile: networks.loadNetworkFile,
    migrate: migrate.migrate,
    /** The hosted page, the console and the settlement CSV: the browser-facing routes. */
    webPages: (a: import('./app.ts').App) => [
      ...pages.webPages(a),
      ...consoles.consolePages(a),
      report.settlementCsvPage(a),
    ],
    startHttpServer: server.startHttpServer,
    startWorker: runner.startWorker,
  };
}

/**
 * The embedded development stack (PostgreSQL, anvil, the Tron facade, demo provisioning), loaded only
 * when it runs: a production process never imports it, and the image installs none of its packages.
 */
async function devStack() {
  // What starts the database and chains first; provisioning and the inbox (and tronweb, which
  // provisioning imports) are only needed once the service is up.
  const later = Promise.all([import('./devstack/provision.ts'), import('./devstack/webhook-inbox.ts')]);
  later.catch(() => {});
  const [chains, database] = await Promise.all([
    import('./devstack/chains.ts'),
    import('./devstack/database.ts'),
  ]);
  return {
    startDevChains: chains.startDevChains,
    startDevDatabase: database.startDevDatabase,
    devSecretsKey: database.devSecretsKey,
    provisionDemo: async (...args: Parameters<typeof import('./devstack/provision.ts').provisionDemo>) =>
      (await later)[0].provisionDemo(...args),
    webhookInbox: async () => (await later)[1].webhookInbox,
  };
}
type DevStack = Awaited<ReturnType<typeof devStack>>;

async function main() {
  // Loading the service's code is most of a start's CPU: with Node's compile cache (in the OS temp
  // directory; NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1 turns it off) a start after
  // the first skips type stripping and compiling. It covers what is imported from here on, which is
  // why the service's code is imported dynamically (serviceCode, devStack).
  enableCompileCache();
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
    const loading = serviceCode();
    // Awaited below; a failure before then is reported there, not as an unhandled rejection.
    loading.catch(() => {});
    if (config.embedded)
      logger.info('no DATABASE_URL: starting the embedded development stack', { dataDir: config.dataDir });
    if (config.networksFile)
      requireReadableFile('NETWORKS_FILE', config.networksFile, 'a readable JSON network file');
    if (config.embedded || !config.networksFile) dev = await devStack();
    // The embedded database and the local chains start side by side: neither waits on the other.
    const [db, chains] = await Promise.allSettled([
      config.embedded ? dev!.startDevDatabase(config.dataDir, config.embeddedPgPort) : undefined,
      config.networksFile ? undefined : dev!.startDevChains(path.join(config.dataDir, 'chains'), logger),
    ]);
    if (db.status === 'fulfilled' && db.value) {
      const server = db.value.server;
      stops.push(() => server.stop());
      config = {
        ...config,
        databaseUrl: db.value.url,
        secretsKey: config.secretsKey ?? dev!.devSecretsKey(config.dataDir),
      };
    }
    if (chains.status === 'fulfilled' && chains.value) {
      devChains = chains.value;
      stops.push(() => devChains!.stop());
    }
    if (db.status === 'rejected') throw db.reason;
    if (chains.status === 'rejected') throw chains.reason;
    const { createApp, loadNetworkFile, migrate, startHttpServer, startWorker, webPages } = await loading;
    // Written now, not only at exit: a process that is killed leaves it behind too.
    flushCompileCache();
    networks = devChains ? devChains.networks : loadNetworkFile(config.networksFile!);
    if (!config.secretsKey) throw new ConfigError('SECRETS_KEY is required outside the embedded stack');

    await migrate(config.databaseUrl!);
    const app = await createApp({ config, networks, logger });
    stops.unshift(() => app.close());
    // The operator CLI applies this process's webhook target rule, not its own (webhook-rule.ts).
    await recordWebhookRule(app.fork(), config.webhookAllowPrivate);
    const pages = dev && devChains ? [...webPages(app), (await dev.webhookInbox())(app)] : webPages(app);
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
  else if ((error as Error).name === 'ListenError')
    console.error(`startup failed: ${(error as Error).message}`);
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
