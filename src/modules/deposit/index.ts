import type { GatewayModule } from '../module.ts';
import { depositNetworkOf } from './deposit.chain.ts';
import { depositConsumer } from './deposit.consumer.ts';
import { DepositAddressSchema, DepositSchema, SweepSchema } from './deposit.entity.ts';
import { depositAddressRoutes } from './deposit-address.rest.ts';
import { sweepRelayHandler } from './sweep.ts';
import { SweepHoldSchema } from './sweep-hold.ts';
import './sweep-hold.graphql.ts';
import './deposit.graphql.ts';

/** Standing deposit addresses: forwarders credited from the chain and swept to the merchant. */
export const depositModule: GatewayModule = {
  name: 'deposit',
  entities: [DepositAddressSchema, DepositSchema, SweepSchema, SweepHoldSchema],
  routes: depositAddressRoutes,
  consumers: ({ services }, network, options) => {
    const deposits = depositNetworkOf(network);
    if (!deposits) return [];
    const deps = {
      logger: services.logger,
      startBlock: options.depositStartBlock ?? options.sessionStartBlock,
      sweepIntervalMs: options.sweepIntervalMs,
      canSweep: services.relayer.wallet(network) !== undefined,
      now: options.now,
    };
    return [depositConsumer(deps, deposits)];
  },
  relayHandlers: ({ services, fork }) => ({ sweep: sweepRelayHandler({ fork, logger: services.logger }) }),
};
