import { z } from 'zod';
import { defineJob, jobTask } from '../../db/jobs.ts';
import type { NonceStore } from './nonce-store.ts';

/** Periodic: deletes request nonces older than the replay window. */
export const PRUNE_NONCES_JOB = defineJob({ name: 'prune_nonces', payload: z.looseObject({}) });

/** Idempotent: a second run deletes nothing more. */
export const pruneNoncesTask = (nonces: NonceStore) =>
  jobTask(PRUNE_NONCES_JOB, async (_payload, helpers) => {
    const deleted = await nonces.prune();
    helpers.logger.debug(`pruned ${deleted} request nonces`);
  });
