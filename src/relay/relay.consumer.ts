import { id as topicOf } from 'ethers';
import type { NetworkConfig } from '../chains/networks.ts';
import type { Consumer } from '../followers/types.ts';
import { watchEvm } from './evm-watch.ts';
import type { Relayer } from './relayer.ts';
import { watchTron } from './tron.ts';

/**
 * The relayer's watcher as a consumer of a network's chain follower: it reads no logs of its own (the
 * routers' consumers settle payouts from events); after each tick it looks at the network's relay
 * transactions (evm-watch.ts, tron.ts). Running in the follower means one process watches a network at
 * a time, while any worker process sends.
 */

export const RELAYS_STREAM = 'relays';
/** A topic no contract emits: the stream needs a filter, the watcher needs no logs. */
const NO_LOGS = topicOf('cryptopay.relays.no-logs()');

export function relayConsumer(relayer: Relayer, network: NetworkConfig): Consumer {
  return {
    stream: RELAYS_STREAM,
    filter: { address: relayer.wallet(network)!.address, topics: [NO_LOGS] },
    startBlock: (head) => head.number,
    async handle() {},
    // It writes nothing in a block transaction: never a reason for one.
    idle: () => true,
    // Fenced like the follower's own transactions: only the network's leader records relay outcomes.
    afterTick: (ctx) => {
      const fenced = relayer.fencedBy(ctx.transaction);
      return network.kind === 'tron' ? watchTron(fenced, network) : watchEvm(fenced, network, ctx.finalized);
    },
  };
}
