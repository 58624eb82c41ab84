import { relayConsumer } from '../../relay/relay.consumer.ts';
import { RelayerWalletSchema, RelayRequestSchema, RelayTransactionSchema } from '../../relay/relay.entity.ts';
import { relayRequestTask } from '../../relay/relay.task.ts';
import type { GatewayModule } from '../module.ts';
import '../../relay/relay.graphql.ts';

/**
 * The relayer (src/relay/): the transactions the service submits and pays gas for — payouts, batches,
 * sweeps, whose modules hand it their requests — sent by the worker, watched by the chain follower.
 */
export const relayModule: GatewayModule = {
  name: 'relay',
  entities: [RelayRequestSchema, RelayTransactionSchema, RelayerWalletSchema],
  tasks: ({ services, fork }) => [relayRequestTask(services.relayer, fork)],
  consumers: ({ services }, network) =>
    services.relayer.wallet(network) ? [relayConsumer(services.relayer, network)] : [],
};
