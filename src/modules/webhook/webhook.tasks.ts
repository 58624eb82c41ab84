import { z } from 'zod';
import { defineJob, jobTask } from '../../db/jobs.ts';
import type { EntityManager } from '../../db/orm.ts';
import { DELIVER_WEBHOOK_JOB } from './outbox.ts';
import type { WebhookService } from './webhook.service.ts';

interface Deps {
  webhooks: WebhookService;
  fork: () => EntityManager;
}

/**
 * `deliver_webhook`: the next attempt of one delivery (section 6.1, D9), or with no delivery a pump
 * run, sent in batches with whatever else is due (see Deliverer). A pump is queued when a new delivery
 * is announced (waker.ts); a delivery's own job is added for each retry at `next_attempt_at`.
 * Idempotent: see Deliverer.run. HTTP failures are recorded, not thrown; a throw (database trouble)
 * leaves the retry to graphile-worker as a safety net.
 */
export const deliverWebhookTask = (deps: Deps) =>
  jobTask(DELIVER_WEBHOOK_JOB, async ({ deliveryId }, helpers) => {
    const outcome = await deps.webhooks.deliver(deps.fork(), deliveryId ?? null);
    helpers.logger.debug(`webhook ${deliveryId ?? 'pump'}: ${outcome}`);
  });

/** Periodic: re-queues deliveries whose worker died mid-attempt or whose job went missing. */
export const SWEEP_WEBHOOKS_JOB = defineJob({ name: 'sweep_webhooks', payload: z.looseObject({}) });

/** So that a committed event is always delivered. Idempotent. */
export const sweepWebhooksTask = (deps: Deps) =>
  jobTask(SWEEP_WEBHOOKS_JOB, async (_payload, helpers) => {
    const requeued = await deps.webhooks.sweep(deps.fork());
    if (requeued) helpers.logger.info(`re-queued ${requeued} stuck webhook deliveries`);
  });
