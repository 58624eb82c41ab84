import type { BlockHeader } from '../types.ts';
import type { RpcTransport } from './rpc/transport.ts';
import { smallQuantity, toHex } from './util.ts';

/** Block numbers and headers, the part of a block a chain follower needs to notice a reorganisation. */

export type BlockRef = number | 'latest' | 'safe' | 'finalized';

export async function getBlockNumber(transport: RpcTransport): Promise<number> {
  return smallQuantity(await transport.request('eth_blockNumber'), 'eth_blockNumber');
}

/** The header, or null when the node has no such block (yet). */
export async function getBlockHeader(transport: RpcTransport, block: BlockRef): Promise<BlockHeader | null> {
  return parseHeader(await transport.request('eth_getBlockByNumber', [tag(block), false]));
}

/** Headers of many blocks in one JSON-RPC batch; null for each block the node does not have. */
export async function getBlockHeaders(
  transport: RpcTransport,
  numbers: readonly number[],
): Promise<(BlockHeader | null)[]> {
  const outcomes = await transport.batch(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toHex(n), false] })),
  );
  return outcomes.map((o) => {
    // A node that errors on a plain header read is broken; report it as one.
    if (!o.ok) throw o.error;
    return parseHeader(o.result);
  });
}

const tag = (block: BlockRef) => (typeof block === 'number' ? toHex(block) : block);

export function parseHeader(raw: unknown): BlockHeader | null {
  if (raw === null || raw === undefined) return null;
  const b = raw as Record<string, unknown>;
  return {
    number: smallQuantity(b.number, 'block.number'),
    hash: String(b.hash),
    parentHash: String(b.parentHash),
    timestamp: smallQuantity(b.timestamp, 'block.timestamp'),
  };
}
