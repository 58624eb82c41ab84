import type { GatewayModule } from '../module.ts';
import { ApiKeySchema, OperatorTokenSchema, RequestNonceSchema } from './auth.entity.ts';
import { PRUNE_NONCES_JOB, pruneNoncesTask } from './auth.tasks.ts';

/** API keys, operator tokens and the request nonces of the replay window. */
export const authModule: GatewayModule = {
  name: 'auth',
  entities: [ApiKeySchema, OperatorTokenSchema, RequestNonceSchema],
  tasks: ({ services }) => [pruneNoncesTask(services.nonces)],
  crontab: [
    // Nonces only matter inside the replay window; keep the table small.
    {
      task: PRUNE_NONCES_JOB.name,
      match: '*/5 * * * *',
      identifier: PRUNE_NONCES_JOB.name,
      options: { backfillPeriod: 0 },
    },
  ],
};
