import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { App } from '../src/app.ts';
import type { EntityManager } from '../src/db/orm.ts';
import type { WebhookService } from '../src/modules/webhook/webhook.service.ts';

/** A delivery's own run, or (no id) a pump run queued to send whatever is due. */
const payloadSchema = z.object({ deliveryId: z.string().min(1).max(40).optional() });

/**
 * `deliver_webhook`: the next attempt of one delivery (section 6.1, D9), sent in batches with
 * whatever else is due (see Deliverer). Added by the outbox in the business transaction and re-added
 * for each retry at `next_attempt_at`. Idempotent: see Deliverer.run. HTTP failures are recorded, not
 * thrown; a throw (database trouble) leaves the retry to graphile-worker as a safety net.
 */
export const deliverWebhookTask =
  (deps: { webhooks: WebhookService; fork: () => EntityManager }): Task =>
  async (payload, helpers) => {
    const { deliveryId } = payloadSchema.parse(payload);
    const outcome = await deps.webhooks.deliver(deps.fork(), deliveryId ?? null);
    helpers.logger.debug(`webhook ${deliveryId ?? 'pump'}: ${outcome}`);
  };

export const deliverWebhook = (app: App): Task =>
  deliverWebhookTask({ webhooks: app.services.webhooks, fork: () => app.fork() });
