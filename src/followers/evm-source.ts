import { parseHeader } from '../chains/evm/blocks.ts';
import type { EvmClient } from '../chains/evm/index.ts';
import { RpcError } from '../chains/evm/rpc/errors.ts';
import { deepestTier, type NetworkConfig } from '../chains/networks.ts';
import type { BlockHeader } from '../chains/types.ts';
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
  /** The node's `finalized` block as read beside the last head (one request for both). */
  let finalizedBeside: { number: number | null } | undefined;

  const unsupported = (error: unknown) => {
    if (!(error instanceof RpcError) && !(error instanceof Error && error.cause instanceof RpcError))
      throw error;
    tagSupported = false;
    return null;
  };
  const present = (head: BlockHeader | null): BlockHeader => {
    if (!head) throw unavailable(`network ${network.id}: the node has no head block`);
    return head;
  };
  const supported = (finalized: BlockHeader | null) => {
    tagSupported = finalized !== null;
    return finalized?.number ?? null;
  };

  return {
    finality: { depth: network.finalityDepth, window: Math.max(1, deepestTier(network)) },
    async head() {
      finalizedBeside = undefined;
      if (tagSupported === false) return present(await client.getBlockHeader('latest'));
      // The head and the node's `finalized` block in one batch: an idle tick's first round trip.
      const [latest, finalized] = await client.transport.batch([
        { method: 'eth_getBlockByNumber', params: ['latest', false] },
        { method: 'eth_getBlockByNumber', params: ['finalized', false] },
      ]);
      if (!latest!.ok)
        throw unavailable(`network ${network.id}: eth_getBlockByNumber failed: ${latest!.error.message}`);
      const head = present(parseHeader(latest!.result));
      finalizedBeside = {
        number: finalized!.ok ? supported(parseHeader(finalized!.result)) : unsupported(finalized!.error),
      };
      return head;
    },
    async nodeFinalized() {
      const beside = finalizedBeside;
      finalizedBeside = undefined;
      if (beside) return beside.number;
      if (tagSupported === false) return null;
      try {
        return supported(await client.getBlockHeader('finalized'));
      } catch (error) {
        return unsupported(error);
      }
    },
    headers: (numbers) => client.getBlockHeaders(numbers),
    finalLogs: (filter, from, to) => client.scanLogs({ ...filter, fromBlock: from, toBlock: to }),
    blockLogs: (filter, hashes) => client.getLogsByBlockHashes(filter, hashes),
  };
}
