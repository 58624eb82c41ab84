import { validation } from '../../errors.ts';
import { address, nodeAddress, smallQuantity, toHex } from './util.ts';

/** The log shape and filter of eth_getLogs, parsed and validated once here. */

export interface EvmLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
  /** True only for logs delivered again because their block left the canonical chain. */
  removed: boolean;
}

export interface LogFilter {
  /** One contract, several (logs of any of them), or every contract when omitted. */
  address?: string | readonly string[];
  /** Per position: one topic, any of several, or null for "any". */
  topics?: readonly (string | readonly string[] | null)[];
}

export interface LogRange extends LogFilter {
  fromBlock: number;
  toBlock: number;
}

const TOPIC = /^0x[0-9a-fA-F]{64}$/;

/** Validates a filter into eth_getLogs params for one block range. */
export function logParams(filter: LogFilter, fromBlock: number, toBlock: number): Record<string, unknown> {
  const params: Record<string, unknown> = { fromBlock: toHex(fromBlock), toBlock: toHex(toBlock) };
  if (filter.address !== undefined) {
    params.address =
      typeof filter.address === 'string'
        ? address(filter.address, 'address')
        : filter.address.map((a) => address(a, 'address'));
  }
  if (filter.topics !== undefined) {
    params.topics = filter.topics.map((t) =>
      t === null ? null : typeof t === 'string' ? topic(t) : t.map(topic),
    );
  }
  return params;
}

function topic(value: string): string {
  if (!TOPIC.test(value)) throw validation('a log topic must be 0x followed by 64 hex characters');
  return value.toLowerCase();
}

export function checkRange(fromBlock: number, toBlock: number): void {
  if (!Number.isSafeInteger(fromBlock) || !Number.isSafeInteger(toBlock) || fromBlock < 0 || toBlock < 0) {
    throw validation('block numbers must be non-negative integers');
  }
}

export function parseLog(raw: unknown): EvmLog {
  const l = raw as Record<string, unknown>;
  return {
    address: nodeAddress(l.address, 'log.address'),
    topics: Array.isArray(l.topics) ? l.topics.map(String) : [],
    data: String(l.data ?? '0x'),
    blockNumber: smallQuantity(l.blockNumber, 'log.blockNumber'),
    blockHash: String(l.blockHash),
    transactionHash: String(l.transactionHash),
    transactionIndex: smallQuantity(l.transactionIndex, 'log.transactionIndex'),
    logIndex: smallQuantity(l.logIndex, 'log.logIndex'),
    removed: l.removed === true,
  };
}

/**
 * The address in a 32-byte word (an indexed address topic, an ABI-encoded argument): its last 20
 * bytes, as lowercase `0x` hex. The case of a node's hex means nothing, so it never decides a match.
 */
export const wordAddress = (word: string): string => `0x${word.slice(-40).toLowerCase()}`;

/** Chain order: block, then position in the block. */
export const byChainOrder = (a: EvmLog, b: EvmLog) =>
  a.blockNumber - b.blockNumber || a.logIndex - b.logIndex;
