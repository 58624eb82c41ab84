import type { GatewayModule } from '../module.ts';
import { ApiKeySchema, OperatorAuditSchema, OperatorTokenSchema, RequestNonceSchema } from './auth.entity.ts';
import { PRUNE_NONCES_JOB, pruneNoncesTask } from './auth.tasks.ts';
import './operator.graphql.ts';

/** API keys, operator tokens and their audit log, and the request nonces of the replay window. */
export const authModule: GatewayModule = {
  name: 'auth',
  entities: [ApiKeySchema, OperatorTokenSchema, OperatorAuditSchema, RequestNonceSchema],
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
