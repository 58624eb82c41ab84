/**
 * A worker process for the multi-process tests: the daemons (chain followers included) against
 * DATABASE_URL and NETWORKS_FILE, until it is stopped or killed. Started with `node --import tsx`;
 * prints `ready` once its worker runs.
 */
import { createApp } from '../../src/app.ts';
import { loadNetworkFile } from '../../src/chains/networks.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startWorker } from '../../src/worker/runner.ts';

const config = loadConfig({ ...process.env, RUN_WORKER: 'true', LOG_LEVEL: 'error' });
const app = await createApp({
  config,
  networks: loadNetworkFile(config.networksFile!),
  logger: createLogger('error'),
});
const worker = await startWorker(app, {
  followers: {
    owner: process.env.FOLLOWER_OWNER,
    sessionStartBlock: Number(process.env.START_BLOCK),
  },
});
process.on('SIGTERM', () => {
  void worker
    .stop()
    .then(() => app.close())
    .then(() => process.exit(0));
});
process.stdout.write('ready\n');
