import { z } from 'zod';
import { defineJob, jobTask } from '../../db/jobs.ts';
import type { EntityManager } from '../../db/orm.ts';
import { applyRetention, type RetentionSettings } from './retention.ts';

/** Periodic: deletes what retention allows (retention.ts). */
export const RETENTION_JOB = defineJob({ name: 'apply_retention', payload: z.looseObject({}) });

/** Idempotent: a second run deletes nothing more. */
export const retentionTask = (settings: RetentionSettings, fork: () => EntityManager) =>
  jobTask(RETENTION_JOB, async (_payload, helpers) => {
    const deleted = await applyRetention(fork(), settings);
    if (deleted.sessions || deleted.webhookEvents || deleted.approvalBuilds)
      helpers.logger.info(`retention: deleted ${JSON.stringify(deleted)}`);
  });
