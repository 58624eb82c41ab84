import { unavailable } from '../../errors.ts';
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

/** Whether `log` passes an eth_getLogs-style filter (addresses, topics by position). */
function matches(filter: LogFilter, log: EvmLog): boolean {
  if (filter.address !== undefined) {
    const addresses = (typeof filter.address === 'string' ? [filter.address] : filter.address).map((a) =>
      a.toLowerCase(),
    );
    if (!addresses.includes(log.address)) return false;
  }
  return (filter.topics ?? []).every((wanted, i) => {
    if (wanted === null) return true;
    const options = (typeof wanted === 'string' ? [wanted] : wanted).map((t) => t.toLowerCase());
    return options.includes(log.topics[i] ?? '');
  });
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
  const numbers = Array.from({ length: toBlock - fromBlock + 1 }, (_, i) => fromBlock + i);
  const perBlock = await mapLimit(numbers, CONCURRENCY, async (num) => {
    const [block, infos] = await Promise.all([
      http.post<BlockJson>('/walletsolidity/getblockbynum', { num }),
      http.post<InfoJson[]>('/walletsolidity/gettransactioninfobyblocknum', { num }),
    ]);
    const header = headerOf(http.networkId, block);
    if (!header)
      throw unavailable(`network ${http.networkId}: solidified block ${num} is not available from the node`);
    if (!Array.isArray(infos)) throw malformed(http.networkId, 'gettransactioninfobyblocknum', infos);
    const logs: EvmLog[] = [];
    let logIndex = 0;
    infos.forEach((info, transactionIndex) => {
      if (typeof info.id !== 'string' || info.blockNumber !== num)
        throw malformed(http.networkId, 'gettransactioninfobyblocknum', infos);
      for (const raw of info.log ?? []) {
        const log: EvmLog = {
          address: hex(`${raw.address ?? ''}`.slice(-40)),
          topics: (raw.topics ?? []).map(hex),
          data: hex(raw.data ?? ''),
          blockNumber: num,
          blockHash: header.hash,
          transactionHash: hex(info.id),
          transactionIndex,
          logIndex: logIndex++,
          removed: false,
        };
        if (matches(filter, log)) logs.push(log);
      }
    });
    return logs;
  });
  return perBlock.flat();
}
