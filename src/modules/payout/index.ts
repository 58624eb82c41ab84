import type { GatewayModule } from '../module.ts';
import { payoutConsumer, routerStreamDeps } from './payout.consumer.ts';
import { PayoutSchema, RouterNonceSchema } from './payout.entity.ts';
import { payoutRelayHandler } from './payout.relay.ts';
import { payoutRoutes } from './payout.rest.ts';
import './payout.graphql.ts';

/** Single payouts: merchant-signed orders relayed to the payout router, settled from its events. */
export const payoutModule: GatewayModule = {
  name: 'payout',
  entities: [PayoutSchema, RouterNonceSchema],
  routes: payoutRoutes,
  consumers: (context, network, options) => {
    const router = network.contracts.payoutRouter;
    return router ? [payoutConsumer(routerStreamDeps(context, options), network, router)] : [];
  },
  relayHandlers: ({ services, fork }) => ({
    payout: payoutRelayHandler({ chains: services.payoutChains, fork, logger: services.logger }),
  }),
};
