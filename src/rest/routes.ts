import { approvalRoutes } from '../modules/approval/approval.rest.ts';
import { balanceRoutes } from '../modules/balance/balance.rest.ts';
import { batchRoutes } from '../modules/batch/batch.rest.ts';
import { depositAddressRoutes } from '../modules/deposit/deposit-address.rest.ts';
import { hostedRoutes } from '../modules/hosted/hosted.rest.ts';
import { payoutRoutes } from '../modules/payout/payout.rest.ts';
import { sessionRoutes } from '../modules/session/session.rest.ts';
import type { RestRoute } from './route.ts';

/** Every `/v1` route of every module: the declarative table the adapter and OpenAPI read. */
export const routes: RestRoute[] = [
  ...sessionRoutes,
  ...hostedRoutes,
  ...payoutRoutes,
  ...batchRoutes,
  ...approvalRoutes,
  ...balanceRoutes,
  ...depositAddressRoutes,
];
