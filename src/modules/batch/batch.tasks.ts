import { jobTask } from '../../db/jobs.ts';
import type { EntityManager } from '../../db/orm.ts';
import { resubmitBatch } from './batch.authorize.ts';
import { BATCH_RESUBMIT_JOB } from './batch.settle.ts';

/**
 * `batch_resubmit`: queues the next submission of a batch whose last one left items unpaid (added by
 * the batch consumer with a backoff; see batch.settle.ts). Idempotent per (batch, submission).
 */
export const batchResubmitTask = (fork: () => EntityManager) =>
  jobTask(BATCH_RESUBMIT_JOB, async ({ batchId, submission }, helpers) => {
    const queued = await resubmitBatch(fork(), batchId, submission);
    helpers.logger.debug(`batch ${batchId}: submission ${submission} ${queued ? 'queued' : 'not needed'}`);
  });
