import type { Task } from 'graphile-worker';
import type { App } from '../src/app.ts';
import type { EntityManager } from '../src/db/orm.ts';
import type { WebhookService } from '../src/modules/webhook/webhook.service.ts';

/**
 * `sweep_webhooks` (every minute): re-queues deliveries whose worker died mid-attempt (lease expired)
 * or whose job went missing, so that a committed event is always delivered. Idempotent.
 */
export const sweepWebhooksTask =
  (deps: { webhooks: WebhookService; fork: () => EntityManager }): Task =>
  async (_payload, helpers) => {
    const requeued = await deps.webhooks.sweep(deps.fork());
    if (requeued) helpers.logger.info(`re-queued ${requeued} stuck webhook deliveries`);
  };

export const sweepWebhooks = (app: App): Task =>
  sweepWebhooksTask({ webhooks: app.services.webhooks, fork: () => app.fork() });
