import { solidifiedBlockCache } from '../chains/tron/blocks.ts';
import type { TronHttp } from '../chains/tron/http.ts';
import { blockNumber } from '../chains/tron/status.ts';
import { unavailable } from '../errors.ts';
import type { ChainSource } from './types.ts';

/** Blocks read per chunk of a final range (each block is two requests on Tron). */
export const TRON_CHUNK_BLOCKS = 100;

/**
 * A Tron network as a follower reads it: the solidified chain only. The head is the solidified block
 * and every block the follower sees is final, so its window stays empty and no reorganisation can
 * reach a consumer.
 */
export function tronSource(http: TronHttp): ChainSource {
  // Every consumer reads the same new blocks each tick: each is fetched from the node once.
  const blocks = solidifiedBlockCache(http);
  return {
    finality: { depth: 0, window: 0 },
    async head() {
      const [head] = await blocks.headers([await blockNumber(http, true)]);
      if (!head) throw unavailable(`network ${http.networkId}: the solidified head is not available`);
      return head;
    },
    nodeFinalized: async (head) => head.number,
    headers: (numbers) => blocks.headers(numbers),
    async *finalLogs(filter, from, to) {
      for (let start = from; start <= to; start += TRON_CHUNK_BLOCKS) {
        const end = Math.min(to, start + TRON_CHUNK_BLOCKS - 1);
        yield { fromBlock: start, toBlock: end, logs: await blocks.logs(filter, start, end) };
      }
    },
    blockLogs: async () => {
      throw new Error('a Tron follower reads solidified blocks only; it has no unfinalized block');
    },
  };
}
