import type { GatewayModule } from '../module.ts';
import { balanceRoutes } from './balance.rest.ts';
import './balance.graphql.ts';

/** Token balances of the merchants' settlement wallets. */
export const balanceModule: GatewayModule = {
  name: 'balance',
  routes: balanceRoutes,
};
