import type { GatewayModule } from '../module.ts';
import { RETENTION_JOB, retentionTask } from './retention.tasks.ts';

/**
 * Retention of what has ended: failed sessions that were never paid, and webhook events whose
 * deliveries all ended (SESSION_RETENTION_DAYS, WEBHOOK_RETENTION_DAYS). Never a money movement.
 */
export const retentionModule: GatewayModule = {
  name: 'retention',
  tasks: ({ services, fork }) => [retentionTask(services.config, fork)],
  crontab: [
    // Hourly, at an odd minute: a pass finds at most an hour's worth of rows.
    {
      task: RETENTION_JOB.name,
      match: '17 * * * *',
      identifier: RETENTION_JOB.name,
      options: { backfillPeriod: 0 },
    },
  ],
};
