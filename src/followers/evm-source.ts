import type { EvmClient } from '../chains/evm/index.ts';
import { RpcError } from '../chains/evm/rpc/errors.ts';
import { deepestTier, type NetworkConfig } from '../chains/networks.ts';
import { unavailable } from '../errors.ts';
import type { ChainSource } from './types.ts';

/**
 * An EVM network as a follower reads it. The node's `finalized` block is reported as it is (a node
 * that answers the tag with an error does not support it; the source remembers and reports null); the
 * follower takes the more conservative of it and `finalityDepth` behind the head (finality.ts), and
 * keeps the deepest confirmation tier's blocks in its reorg window whatever the node says.
 */
export function evmSource(
  client: EvmClient,
  network: Pick<NetworkConfig, 'id' | 'finalityDepth' | 'confirmations'>,
): ChainSource {
  let tagSupported: boolean | undefined;

  return {
    finality: { depth: network.finalityDepth, window: Math.max(1, deepestTier(network)) },
    async head() {
      const head = await client.getBlockHeader('latest');
      if (!head) throw unavailable(`network ${network.id}: the node has no head block`);
      return head;
    },
    async nodeFinalized() {
      if (tagSupported === false) return null;
      try {
        const finalized = await client.getBlockHeader('finalized');
        tagSupported = finalized !== null;
        return finalized?.number ?? null;
      } catch (error) {
        if (!(error instanceof Error) || !(error.cause instanceof RpcError)) throw error;
        tagSupported = false;
        return null;
      }
    },
    headers: (numbers) => client.getBlockHeaders(numbers),
    finalLogs: (filter, from, to) => client.scanLogs({ ...filter, fromBlock: from, toBlock: to }),
    blockLogs: (filter, hashes) => client.getLogsByBlockHashes(filter, hashes),
  };
}
