import type { EvmBlock, EvmRpc } from './evm-rpc.ts';
import { toQuantity } from './evm-rpc.ts';

/**
 * Tron's view of the anvil chain: block numbers, Tron-style block ids and the solidified head.
 * A Tron blockID is the block number as 8 big-endian bytes followed by the last 24 bytes of the
 * block's hash; here the hash is the EVM block hash, so ids are stable and parent links hold.
 */

const BLOCK_NUMBER_HEX_CHARS = 16;
/** java-tron's current block version; reported for shape only. */
const BLOCK_VERSION = 30;
/** Tron's ref_block_bytes are bytes 6..8 of the 8-byte block number; ref_block_hash bytes 8..16 of the id. */
const REF_BYTES_FROM = 12;
const REF_HASH_FROM = 16;
const REF_HASH_TO = 32;

export const tronBlockId = (number: number, evmHash: string): string =>
  number.toString(16).padStart(BLOCK_NUMBER_HEX_CHARS, '0') + evmHash.slice(2 + BLOCK_NUMBER_HEX_CHARS);

/** The TaPoS reference a transaction built on this block carries. */
export function refBlockOf(blockId: string): { refBlockBytes: string; refBlockHash: string } {
  return {
    refBlockBytes: blockId.slice(REF_BYTES_FROM, REF_HASH_FROM),
    refBlockHash: blockId.slice(REF_HASH_FROM, REF_HASH_TO),
  };
}

/** A Tron block header's raw_data as the node's JSON has it. */
export interface BlockHeaderJson {
  number: number;
  txTrieRoot: string;
  witness_address: string;
  parentHash: string;
  version: number;
  timestamp: number;
}

export interface ChainView {
  /** Number of the newest block. */
  head(): Promise<number>;
  /** Number of the newest solidified block: `solidifiedLag` blocks behind the head. */
  solidified(): Promise<number>;
  /** The EVM block `n`, or undefined beyond the head. */
  block(n: number): Promise<EvmBlock | undefined>;
  /** The EVM block by tag (`latest`), always present. */
  latest(): Promise<EvmBlock>;
  /**
   * The EVM block `n` when it is at or below the head (`solid`: the solidified block), else undefined:
   * the head and the block read in one request to the node.
   */
  blockUpTo(n: number, solid: boolean): Promise<EvmBlock | undefined>;
}

export function createChainView(rpc: EvmRpc, solidifiedLag: number): ChainView {
  const head = async () => Number(await rpc.call<string>('eth_blockNumber'));
  return {
    head,
    solidified: async () => Math.max(0, (await head()) - solidifiedLag),
    block: async (n) =>
      (await rpc.call<EvmBlock | null>('eth_getBlockByNumber', [toQuantity(n), false])) ?? undefined,
    latest: async () => (await rpc.call<EvmBlock>('eth_getBlockByNumber', ['latest', false]))!,
    async blockUpTo(n, solid) {
      const [top, block] = (await rpc.batch([
        { method: 'eth_blockNumber', params: [] },
        { method: 'eth_getBlockByNumber', params: [toQuantity(n), false] },
      ])) as [string, EvmBlock | null];
      const ceiling = solid ? Math.max(0, Number(top) - solidifiedLag) : Number(top);
      return n > ceiling ? undefined : (block ?? undefined);
    },
  };
}

export const blockNumberOf = (block: EvmBlock): number => Number(block.number);
export const blockTimeMs = (block: EvmBlock): number => Number(block.timestamp) * 1000;
export const blockIdOf = (block: EvmBlock): string => tronBlockId(blockNumberOf(block), block.hash);

/** The header of a Tron-style block built over an EVM block. */
export function headerJson(block: EvmBlock): BlockHeaderJson {
  const number = blockNumberOf(block);
  return {
    number,
    txTrieRoot: block.transactionsRoot.slice(2),
    witness_address: `41${block.miner.slice(2).toLowerCase()}`,
    // The genesis block's parent is all zeros, as the EVM's is.
    parentHash: number === 0 ? block.parentHash.slice(2) : tronBlockId(number - 1, block.parentHash),
    version: BLOCK_VERSION,
    timestamp: blockTimeMs(block),
  };
}
