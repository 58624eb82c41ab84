import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { App } from '../src/app.ts';
import { resubmitBatch } from '../src/modules/batch/batch.authorize.ts';

const payloadSchema = z.object({ batchId: z.string().min(1).max(40), submission: z.number().int().min(2) });

/**
 * `batch_resubmit`: queues the next submission of a batch whose last one left items unpaid (added by
 * the batch consumer with a backoff; see batch.settle.ts). Idempotent per (batch, submission).
 */
export const batchResubmit =
  (app: App): Task =>
  async (payload, helpers) => {
    const { batchId, submission } = payloadSchema.parse(payload);
    const queued = await resubmitBatch(app.fork(), batchId, submission);
    helpers.logger.debug(`batch ${batchId}: submission ${submission} ${queued ? 'queued' : 'not needed'}`);
  };
