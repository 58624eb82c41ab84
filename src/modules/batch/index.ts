import type { GatewayModule } from '../module.ts';
import { routerStreamDeps } from '../payout/payout.consumer.ts';
import { batchConsumer } from './batch.consumer.ts';
import { PayoutBatchSchema } from './batch.entity.ts';
import { batchRelayHandler } from './batch.relay.ts';
import { batchRoutes } from './batch.rest.ts';
import { batchResubmitTask } from './batch.tasks.ts';
import './batch.graphql.ts';

/** Batch payouts: up to 100 items signed once, relayed to the batch router, resubmitted for unpaid items. */
export const batchModule: GatewayModule = {
  name: 'batch',
  entities: [PayoutBatchSchema],
  routes: batchRoutes,
  tasks: ({ fork }) => [batchResubmitTask(fork)],
  consumers: (context, network, options) => {
    const router = network.contracts.batchPayoutRouter;
    return router ? [batchConsumer(routerStreamDeps(context, options), network, router)] : [];
  },
  relayHandlers: ({ services, fork }) => ({ batch: batchRelayHandler({ fork, logger: services.logger }) }),
};
