/**
 * A separate worker process for the crash test: runs `deliver_webhook` against DATABASE_URL until it
 * is killed. Started with `node --import tsx`; the test SIGKILLs it mid-delivery.
 */
import { Logger, run } from 'graphile-worker';
import { parseSecretsKey } from '../../src/config.ts';
import { taskListOf } from '../../src/db/jobs.ts';
import { createOrm } from '../../src/db/orm.ts';
import { PubSub } from '../../src/db/pubsub.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { entities } from '../../src/modules/index.ts';
import { WebhookService } from '../../src/modules/webhook/webhook.service.ts';
import { deliverWebhookTask } from '../../src/modules/webhook/webhook.tasks.ts';

const databaseUrl = process.env.DATABASE_URL!;
const orm = await createOrm(databaseUrl, { entities, poolMax: 2 });
const webhooks = new WebhookService({
  secretsKey: parseSecretsKey(process.env.SECRETS_KEY!),
  allowPrivate: true,
  logger: createLogger('error'),
  pubsub: new PubSub({ databaseUrl, logger: createLogger('error') }),
});
await run({
  connectionString: databaseUrl,
  concurrency: 1,
  noHandleSignals: true,
  pollInterval: 100,
  logger: new Logger(() => () => {}),
  taskList: taskListOf([deliverWebhookTask({ webhooks, fork: () => orm.em.fork() })]),
});
// As every worker process: new deliveries are heard announced (and what came before, at start).
await webhooks.wake(() => orm.em.fork());
process.stdout.write('worker started\n');
