import type { EvmClient } from '../chains/evm/index.ts';
import { RpcError } from '../chains/evm/rpc/errors.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import type { BlockHeader } from '../chains/types.ts';
import { unavailable } from '../errors.ts';
import type { ChainSource } from './types.ts';

/**
 * An EVM network as a follower reads it. Finality: the node's `finalized` block where it serves one
 * (post-merge Ethereum, most L2s, anvil), else `finalityDepth` blocks behind the head. A node that
 * answers the tag with an error does not support it; the source remembers and uses the depth.
 */
export function evmSource(
  client: EvmClient,
  network: Pick<NetworkConfig, 'id' | 'finalityDepth'>,
): ChainSource {
  let tagSupported: boolean | undefined;

  return {
    async head() {
      const head = await client.getBlockHeader('latest');
      if (!head) throw unavailable(`network ${network.id}: the node has no head block`);
      return head;
    },
    async finalized(head: BlockHeader) {
      const byDepth = Math.max(-1, head.number - network.finalityDepth);
      if (tagSupported === false) return byDepth;
      try {
        const finalized = await client.getBlockHeader('finalized');
        tagSupported = finalized !== null;
        // Never ahead of the head this tick works with (the tag may come from a node further on).
        return finalized ? Math.min(finalized.number, head.number) : byDepth;
      } catch (error) {
        if (!(error instanceof Error) || !(error.cause instanceof RpcError)) throw error;
        tagSupported = false;
        return byDepth;
      }
    },
    headers: (numbers) => client.getBlockHeaders(numbers),
    finalLogs: (filter, from, to) => client.scanLogs({ ...filter, fromBlock: from, toBlock: to }),
    blockLogs: (filter, hashes) => client.getLogsByBlockHashes(filter, hashes),
  };
}
