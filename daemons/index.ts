import type { CronItem, TaskList } from 'graphile-worker';
import type { App } from '../src/app.ts';
import { batchResubmit } from './batch-resubmit.ts';
import { deliverWebhook } from './deliver-webhook.ts';
import { pruneNonces } from './prune-nonces.ts';
import { relayRequest } from './relay-request.ts';
import { sweepWebhooks } from './sweep-webhooks.ts';

/** Every daemon task, keyed by its graphile-worker task name. */
export function makeTaskList(app: App): TaskList {
  return {
    prune_nonces: pruneNonces(app),
    deliver_webhook: deliverWebhook(app),
    sweep_webhooks: sweepWebhooks(app),
    batch_resubmit: batchResubmit(app),
    relay_request: relayRequest(app),
  };
}

/** Periodic tasks. */
export const crontab: CronItem[] = [
  // Nonces only matter inside the replay window; keep the table small.
  { task: 'prune_nonces', match: '*/5 * * * *', identifier: 'prune_nonces', options: { backfillPeriod: 0 } },
  // Deliveries whose worker died mid-attempt or whose job went missing are re-queued.
  {
    task: 'sweep_webhooks',
    match: '* * * * *',
    identifier: 'sweep_webhooks',
    options: { backfillPeriod: 0 },
  },
];
