import { unavailable } from '../../errors.ts';
import type { ChainLogger } from '../types.ts';
import { errorMessage, isTooLarge, rangeHint } from './logs-limits.ts';
import {
  byChainOrder,
  checkRange,
  type EvmLog,
  type LogFilter,
  type LogRange,
  logParams,
  parseLog,
} from './logs-parse.ts';
import { RpcError } from './rpc/errors.ts';
import type { RpcTransport } from './rpc/transport.ts';

/**
 * eth_getLogs over long block ranges. Providers cap the range, the result count or the time of a
 * query, each differently, so the chunk size adapts: it shrinks (to the provider's hint when it gives
 * one) on such a refusal or a timeout, and doubles again after a run of successes. Chunks are yielded
 * in order, each complete, so a caller can checkpoint after every one.
 */

export const LOG_RANGE_INITIAL = 2_000;
export const LOG_RANGE_MIN = 1;
export const LOG_RANGE_MAX = 10_000;
/** Consecutive successful chunks before the range doubles. */
export const LOG_RANGE_GROW_AFTER = 3;
/** A slow query is a too-large query; give up on it sooner than on an ordinary call. */
export const LOG_QUERY_TIMEOUT_MS = 15_000;
/** Shrink-and-retry steps on one chunk before the scan gives up. */
export const LOG_MAX_SHRINKS = 16;

export interface LogChunk {
  fromBlock: number;
  toBlock: number;
  /** Every log of the filter in [fromBlock, toBlock], in chain order. */
  logs: EvmLog[];
}

export interface LogScanOptions {
  initialRange: number;
  minRange: number;
  maxRange: number;
  growAfter: number;
  queryTimeoutMs: number;
}

export interface LogScanner {
  /** One eth_getLogs over the whole range, no chunking. */
  getLogs(range: LogRange): Promise<EvmLog[]>;
  /** Chunks covering [fromBlock, toBlock] in order; empty chunks are yielded too (checkpoints). */
  scan(range: LogRange): AsyncGenerator<LogChunk>;
  /**
   * The filter's logs of exact blocks, by block hash (EIP-234), one JSON-RPC batch: each answer belongs
   * to the very block asked for, so logs and headers can never come from two different forks.
   */
  byBlockHashes(filter: LogFilter, hashes: readonly string[]): Promise<EvmLog[][]>;
  /** Current chunk size, kept between scans so a follower does not relearn the provider's limit. */
  rangeSize(): number;
}

export function createLogScanner(params: {
  transport: RpcTransport;
  logger: ChainLogger;
  options?: Partial<LogScanOptions>;
}): LogScanner {
  const { transport, logger } = params;
  const o: LogScanOptions = {
    initialRange: LOG_RANGE_INITIAL,
    minRange: LOG_RANGE_MIN,
    maxRange: LOG_RANGE_MAX,
    growAfter: LOG_RANGE_GROW_AFTER,
    queryTimeoutMs: LOG_QUERY_TIMEOUT_MS,
    ...params.options,
  };
  let size = Math.min(o.maxRange, Math.max(o.minRange, o.initialRange));
  let cap = o.maxRange;
  let successes = 0;

  async function query(filter: LogFilter, from: number, to: number): Promise<EvmLog[]> {
    // No retry rounds: a failing query is answered by a smaller one, not by asking again.
    const raw = await transport.request('eth_getLogs', [logParams(filter, from, to)], {
      timeoutMs: o.queryTimeoutMs,
      retries: 0,
    });
    if (!Array.isArray(raw))
      throw unavailable(`network ${transport.networkId}: eth_getLogs did not return a list`);
    return raw.map(parseLog).sort(byChainOrder);
  }

  async function* scan(range: LogRange): AsyncGenerator<LogChunk> {
    checkRange(range.fromBlock, range.toBlock);
    let from = range.fromBlock;
    let shrinks = 0;
    while (from <= range.toBlock) {
      const to = Math.min(range.toBlock, from + size - 1);
      let logs: EvmLog[];
      try {
        logs = await query(range, from, to);
      } catch (error) {
        if (!isTooLarge(error)) throw asAppError(error, transport.networkId);
        if (to === from || ++shrinks > LOG_MAX_SHRINKS) {
          throw unavailable(
            `network ${transport.networkId}: eth_getLogs keeps failing at block ${from}`,
            error,
          );
        }
        const hint = rangeHint(errorMessage(error), from);
        if (hint.cap !== undefined) cap = Math.max(o.minRange, Math.min(cap, hint.cap));
        const asked = to - from + 1;
        // A hint no smaller than what just failed would loop; halve instead.
        const next = hint.size !== undefined && hint.size < asked ? hint.size : Math.floor(asked / 2);
        size = Math.max(o.minRange, Math.min(next, cap));
        successes = 0;
        logger.warn('eth_getLogs refused; shrinking range', { network: transport.networkId, from, to, size });
        continue;
      }
      shrinks = 0;
      if (++successes >= o.growAfter && size < cap) {
        size = Math.min(cap, size * 2);
        successes = 0;
      }
      yield { fromBlock: from, toBlock: to, logs };
      from = to + 1;
    }
  }

  return {
    async getLogs(range) {
      checkRange(range.fromBlock, range.toBlock);
      if (range.fromBlock > range.toBlock) return [];
      try {
        return await query(range, range.fromBlock, range.toBlock);
      } catch (error) {
        throw asAppError(error, transport.networkId);
      }
    },
    scan,
    async byBlockHashes(filter, hashes) {
      if (hashes.length === 0) return [];
      const { fromBlock: _from, toBlock: _to, ...params } = logParams(filter, 0, 0);
      const outcomes = await transport.batch(
        hashes.map((blockHash) => ({ method: 'eth_getLogs', params: [{ ...params, blockHash }] })),
        { timeoutMs: o.queryTimeoutMs },
      );
      return outcomes.map((outcome, i) => {
        if (!outcome.ok) throw asAppError(outcome.error, transport.networkId);
        if (!Array.isArray(outcome.result))
          throw unavailable(`network ${transport.networkId}: eth_getLogs did not return a list`);
        const logs = outcome.result.map(parseLog).sort(byChainOrder);
        // A node that answers for another block than the one named is not to be believed.
        if (logs.some((l) => l.blockHash.toLowerCase() !== hashes[i]!.toLowerCase())) {
          throw unavailable(`network ${transport.networkId}: eth_getLogs answered for another block`);
        }
        return logs;
      });
    },
    rangeSize: () => size,
  };
}

/** A node's answer to a query we cannot shrink our way out of: the node is not serving us. */
function asAppError(error: unknown, networkId: string): unknown {
  if (error instanceof RpcError)
    return unavailable(`network ${networkId}: eth_getLogs failed: ${error.message}`, error);
  return error;
}
