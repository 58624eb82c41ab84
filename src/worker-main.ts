/**
 * `npm run worker`: the daemons only (listener, relayer, webhook outbox), for scale-out next to API
 * processes started with RUN_WORKER=false. Needs DATABASE_URL and NETWORKS_FILE.
 */
import { createApp } from './app.ts';
import { loadNetworkFile } from './chains/networks.ts';
import { ConfigError, loadConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { createLogger } from './lib/logger.ts';
import { stopOnSignals } from './lib/shutdown.ts';
import { startWorker } from './worker/runner.ts';

async function main() {
  const config = loadConfig();
  if (config.embedded || !config.networksFile) {
    throw new ConfigError(
      'npm run worker needs DATABASE_URL and NETWORKS_FILE (npm start runs the daemons itself)',
    );
  }
  if (!config.secretsKey) throw new ConfigError('SECRETS_KEY is required');
  const logger = createLogger(config.logLevel);
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
