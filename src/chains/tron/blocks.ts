import { unavailable } from '../../errors.ts';
import { logMatches } from '../evm/logs-filter.ts';
import type { EvmLog, LogFilter } from '../evm/logs-parse.ts';
import { mapLimit } from '../evm/util.ts';
import type { BlockHeader } from '../types.ts';
import { malformed, type TronHttp } from './http.ts';

/**
 * Solidified Tron blocks as a chain follower reads them: headers, and the logs of a block range in
 * the EVM log shape (`0x` hex, 20-byte addresses), read through `/walletsolidity/*`, which serves no
 * unsolidified block at all. A solidified block is final, so there is nothing to reorganise.
 */

/** Blocks fetched at once. */
const CONCURRENCY = 4;

interface BlockJson {
  blockID?: string;
  block_header?: { raw_data?: { number?: number; parentHash?: string; timestamp?: number } };
  transactions?: unknown[];
}

interface InfoJson {
  id?: string;
  blockNumber?: number;
  log?: { address?: string; topics?: string[]; data?: string }[];
}

const hex = (value: string) => `0x${value.replace(/^0x/, '').toLowerCase()}`;

function headerOf(networkId: string, block: BlockJson): BlockHeader | null {
  if (!block.blockID) return null;
  const raw = block.block_header?.raw_data;
  if (
    typeof raw?.number !== 'number' ||
    typeof raw.timestamp !== 'number' ||
    typeof raw.parentHash !== 'string'
  )
    throw malformed(networkId, 'getblockbynum', block);
  return {
    number: raw.number,
    hash: hex(block.blockID),
    parentHash: hex(raw.parentHash),
    timestamp: Math.floor(raw.timestamp / 1000),
  };
}

/** Headers of solidified blocks; null for a block the node does not vouch for yet. */
export async function solidifiedHeaders(
  http: TronHttp,
  numbers: readonly number[],
): Promise<(BlockHeader | null)[]> {
  return mapLimit(numbers, CONCURRENCY, async (num) =>
    headerOf(http.networkId, await http.post<BlockJson>('/walletsolidity/getblockbynum', { num })),
  );
}

/** A solidified block as read once: its header and every log in it, unfiltered. */
interface SolidBlock {
  header: BlockHeader;
  logs: EvmLog[];
}

/** Reads solidified block `num` whole (two requests); null when the node does not vouch for it yet. */
async function readSolidBlock(http: TronHttp, num: number): Promise<SolidBlock | null> {
  const [block, infos] = await Promise.all([
    http.post<BlockJson>('/walletsolidity/getblockbynum', { num }),
    http.post<InfoJson[]>('/walletsolidity/gettransactioninfobyblocknum', { num }),
  ]);
  const header = headerOf(http.networkId, block);
  if (!header) return null;
  if (!Array.isArray(infos)) throw malformed(http.networkId, 'gettransactioninfobyblocknum', infos);
  const logs: EvmLog[] = [];
  let logIndex = 0;
  infos.forEach((info, transactionIndex) => {
    if (typeof info.id !== 'string' || info.blockNumber !== num)
      throw malformed(http.networkId, 'gettransactioninfobyblocknum', infos);
    for (const raw of info.log ?? []) {
      logs.push({
        address: hex(`${raw.address ?? ''}`.slice(-40)),
        topics: (raw.topics ?? []).map(hex),
        data: hex(raw.data ?? ''),
        blockNumber: num,
        blockHash: header.hash,
        transactionHash: hex(info.id),
        transactionIndex,
        logIndex: logIndex++,
        removed: false,
      });
    }
  });
  return { header, logs };
}

/**
 * The filter's logs in solidified blocks [fromBlock, toBlock], in block and log order. `logIndex` is
 * the log's position in its block, as on an EVM chain.
 */
export async function solidifiedLogs(
  http: TronHttp,
  filter: LogFilter,
  fromBlock: number,
  toBlock: number,
): Promise<EvmLog[]> {
  return (await solidBlocks(http, fromBlock, toBlock, (num) => readSolidBlock(http, num)))
    .flatMap((b) => b.logs)
    .filter((log) => logMatches(filter, log));
}

/** Blocks [from, to] in order; a block the node does not serve is `unavailable` (a range must be whole). */
const solidBlocks = (
  http: TronHttp,
  from: number,
  to: number,
  read: (num: number) => Promise<SolidBlock | null>,
) =>
  mapLimit(
    Array.from({ length: to - from + 1 }, (_, i) => from + i),
    CONCURRENCY,
    async (num) => {
      const block = await read(num);
      if (!block)
        throw unavailable(
          `network ${http.networkId}: solidified block ${num} is not available from the node`,
        );
      return block;
    },
  );

/** Solidified blocks a {@link SolidifiedBlockCache} keeps: the recent ones every consumer reads. */
export const SOLID_CACHE_BLOCKS = 256;

/** Solidified headers and logs read through a cache of the most recent blocks. */
export interface SolidifiedBlockCache {
  headers(numbers: readonly number[]): Promise<(BlockHeader | null)[]>;
  logs(filter: LogFilter, fromBlock: number, toBlock: number): Promise<EvmLog[]>;
  /** Blocks held now (at most {@link SOLID_CACHE_BLOCKS}). */
  readonly size: number;
}

/**
 * A follower's reads of solidified blocks, each block read from the node once. A follower's consumers
 * each read the same new blocks in a tick (the head's header, then their logs and the range's last
 * header): two requests per new block, and none for a head already seen, instead of three per
 * consumer — most of an idle Tron follower's cost, and on the dev stack most of the Tron facade's too. Safe to keep because a solidified block
 * is irreversible by Tron's own rule; a block the node does not serve yet is never cached.
 */
export function solidifiedBlockCache(http: TronHttp): SolidifiedBlockCache {
  const blocks = new Map<number, Promise<SolidBlock | null>>();
  const read = (num: number): Promise<SolidBlock | null> => {
    const cached = blocks.get(num);
    if (cached) return cached;
    const reading = readSolidBlock(http, num);
    blocks.set(num, reading);
    // Neither a failed read nor a block the node does not serve yet is kept.
    const forget = () => blocks.get(num) === reading && blocks.delete(num);
    reading.then((block) => block ?? forget(), forget);
    // The oldest block goes once the cache is full (a Map keeps insertion order).
    if (blocks.size > SOLID_CACHE_BLOCKS) blocks.delete(blocks.keys().next().value!);
    return reading;
  };
  return {
    headers: (numbers) => mapLimit(numbers, CONCURRENCY, async (num) => (await read(num))?.header ?? null),
    async logs(filter, fromBlock, toBlock) {
      return (await solidBlocks(http, fromBlock, toBlock, read))
        .flatMap((b) => b.logs)
        .filter((log) => logMatches(filter, log));
    },
    get size() {
      return blocks.size;
    },
  };
}
