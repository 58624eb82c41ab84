import type { GatewayModule } from '../module.ts';
import { ApprovalBuildSchema } from './approval.entity.ts';
import { approvalRoutes } from './approval.rest.ts';
import './approval.graphql.ts';

/** ERC-20/TRC-20 approvals of the payout routers: build, broadcast, status. */
export const approvalModule: GatewayModule = {
  name: 'approval',
  entities: [ApprovalBuildSchema],
  routes: approvalRoutes,
};
