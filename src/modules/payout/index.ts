import type { GatewayModule } from '../module.ts';
import { payoutConsumer } from './payout.consumer.ts';
import { PayoutSchema, RouterNonceSchema } from './payout.entity.ts';
import { payoutRelayHandler } from './payout.relay.ts';
import { payoutRoutes } from './payout.rest.ts';
import './payout.graphql.ts';

/** Single payouts: merchant-signed orders relayed to the payout router, settled from its events. */
export const payoutModule: GatewayModule = {
  name: 'payout',
  entities: [PayoutSchema, RouterNonceSchema],
  routes: payoutRoutes,
  consumers: ({ services }, network, options) => {
    const router = network.contracts.payoutRouter;
    if (!router) return [];
    const deps = {
      chains: services.payoutChains,
      logger: services.logger,
      startBlock: options.payoutStartBlock ?? options.sessionStartBlock,
    };
    return [payoutConsumer(deps, network, router)];
  },
  relayHandlers: ({ services, fork }) => ({
    payout: payoutRelayHandler({ chains: services.payoutChains, fork, logger: services.logger }),
  }),
};
