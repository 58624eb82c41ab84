/**
 * `npm run worker`: the daemons only (listener, relayer, webhook outbox), for scale-out next to API
 * processes started with RUN_WORKER=false. Needs DATABASE_URL and NETWORKS_FILE.
 */
import { enableCompileCache, flushCompileCache } from 'node:module';
import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './lib/logger.ts';
import { stopOnSignals } from './lib/shutdown.ts';

async function main() {
  // Loading the service's code is most of a start's CPU: with Node's compile cache (in the OS temp
  // directory; NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1 turns it off) a start after
  // the first skips type stripping and compiling. It covers what is imported from here on, so the
  // service's code is imported below, not at the top.
  enableCompileCache();
  const config = loadConfig();
  if (config.embedded || !config.networksFile) {
    throw new ConfigError(
      'npm run worker needs DATABASE_URL and NETWORKS_FILE (npm start runs the daemons itself)',
    );
  }
  if (!config.secretsKey) throw new ConfigError('SECRETS_KEY is required');
  const logger = createLogger(config.logLevel);
  const [{ createApp }, { loadNetworkFile }, { migrate }, { startWorker }] = await Promise.all([
    import('./app.ts'),
    import('./chains/networks.ts'),
    import('./db/migrate.ts'),
    import('./worker/runner.ts'),
  ]);
  // Written now, not only at exit: a worker that is killed (as a supervisor may) leaves it behind too.
  flushCompileCache();
  await migrate(config.databaseUrl!);
  const app = await createApp({ config, networks: loadNetworkFile(config.networksFile), logger });
  const worker = await startWorker(app);
  // In order: no new jobs (running ones finish), followers resign their networks, then connections.
  stopOnSignals(logger, config.shutdownTimeoutMs, async () => {
    await worker.stop();
    await app.close();
  });
  await worker.runner.promise;
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
