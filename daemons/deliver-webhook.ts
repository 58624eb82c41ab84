import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { App } from '../src/app.ts';
import type { EntityManager } from '../src/db/orm.ts';
import type { WebhookService } from '../src/modules/webhook/webhook.service.ts';

const payloadSchema = z.object({ deliveryId: z.string().min(1).max(40) });

/**
 * `deliver_webhook`: one attempt of one delivery (section 6.1, D9). Added by the outbox in the
 * business transaction and re-added by itself for each retry at `next_attempt_at`. Idempotent: see
 * deliverOnce. HTTP failures are recorded, not thrown; a throw (database trouble) leaves the retry to
 * graphile-worker as a safety net.
 */
export const deliverWebhookTask =
  (deps: { webhooks: WebhookService; fork: () => EntityManager }): Task =>
  async (payload, helpers) => {
    const { deliveryId } = payloadSchema.parse(payload);
    const outcome = await deps.webhooks.deliver(deps.fork(), deliveryId);
    helpers.logger.debug(`webhook ${deliveryId}: ${outcome}`);
  };

export const deliverWebhook = (app: App): Task =>
  deliverWebhookTask({ webhooks: app.services.webhooks, fork: () => app.fork() });
