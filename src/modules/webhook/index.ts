import type { GatewayModule } from '../module.ts';
import { WebhookAttemptSchema, WebhookDeliverySchema, WebhookEventSchema } from './webhook.entity.ts';
import { deliverWebhookTask, SWEEP_WEBHOOKS_JOB, sweepWebhooksTask } from './webhook.tasks.ts';
import './webhook.graphql.ts';

/** The webhook outbox: events, deliveries and their attempts, sent by the worker. */
export const webhookModule: GatewayModule = {
  name: 'webhook',
  entities: [WebhookEventSchema, WebhookDeliverySchema, WebhookAttemptSchema],
  tasks: ({ services, fork }) => [
    deliverWebhookTask({ webhooks: services.webhooks, fork }),
    sweepWebhooksTask({ webhooks: services.webhooks, fork }),
  ],
  // New deliveries have no job of their own: the worker hears them announced and queues a run.
  companion: ({ services, fork }) => services.webhooks.wake(fork),
  crontab: [
    // Deliveries whose worker died mid-attempt or whose job went missing are re-queued.
    {
      task: SWEEP_WEBHOOKS_JOB.name,
      match: '* * * * *',
      identifier: SWEEP_WEBHOOKS_JOB.name,
      options: { backfillPeriod: 0 },
    },
  ],
};
