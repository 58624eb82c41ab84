/**
 * A worker in its own process, as production runs it (`npm run worker`): its own app, pools and
 * publish/subscribe, leading the chain followers that settle sessions. Started by page-worker.test.ts
 * with WORKER_INPUT = {databaseUrl, secretsKey (hex), networks, startBlock}; prints `ready`; stops on SIGTERM.
 */
import { createApp } from '../../src/app.ts';
import { networkFileSchema } from '../../src/chains/networks.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { startWorker } from '../../src/worker/runner.ts';

const input = JSON.parse(process.env.WORKER_INPUT ?? '{}') as {
  databaseUrl: string;
  secretsKey: string;
  networks: unknown;
  startBlock: number;
};
const config = loadConfig({
  NODE_ENV: 'test',
  DATABASE_URL: input.databaseUrl,
  NETWORKS_FILE: '(in memory)',
  SECRETS_KEY: input.secretsKey,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'error',
});
const app = await createApp({
  config,
  networks: networkFileSchema.parse(input.networks),
  logger: createLogger('error'),
});
const worker = await startWorker(app, {
  followers: { sessionStartBlock: input.startBlock, standbyRetryMs: 200 },
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void (async () => {
    await worker.stop();
    await app.close();
    process.exit(0);
  })();
});
