import type { GatewayModule } from '../module.ts';
import { sessionConsumer } from './session.consumer.ts';
import { SessionSchema } from './session.entity.ts';
import { SessionHistorySchema } from './session.history.ts';
import { sessionRoutes } from './session.rest.ts';
import './session.graphql.ts';
import './session.history.graphql.ts';

/** Deposit sessions: the cashier step machine, settled from the payment router's events. */
export const sessionModule: GatewayModule = {
  name: 'session',
  entities: [SessionSchema, SessionHistorySchema],
  routes: sessionRoutes,
  consumers: ({ services }, network, options) => {
    const sessions = services.sessionChains.sessionNetworks().find((n) => n.id === network.id);
    if (!sessions) return [];
    const deps = {
      chains: services.sessionChains,
      config: services.config,
      logger: services.logger,
      startBlock: options.sessionStartBlock,
      now: options.now,
    };
    return [sessionConsumer(deps, sessions)];
  },
};
