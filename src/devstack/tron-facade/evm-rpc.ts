/**
 * The facade's JSON-RPC client for its anvil chain. Transport failures are EvmUnavailable (the facade
 * answers 503 so clients fail over); JSON-RPC errors are EvmRpcError (the call itself was refused).
 */

import { postJson } from '../../chains/evm/rpc/http.ts';

const RPC_TIMEOUT_MS = 10_000;

export class EvmUnavailable extends Error {
  override readonly name = 'EvmUnavailable';
}

export class EvmRpcError extends Error {
  override readonly name = 'EvmRpcError';
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Raw JSON-RPC access to the EVM chain behind the facade. */
export interface EvmRpc {
  call<T>(method: string, params?: unknown[]): Promise<T>;
  /** Several calls in one JSON-RPC batch (one request to the node); results in order. */
  batch(calls: readonly { method: string; params: unknown[] }[]): Promise<unknown[]>;
}

type Answer = { id?: number; result?: unknown; error?: { message: string; code: number; data?: unknown } };

export function createEvmRpc(url: string): EvmRpc {
  let nextId = 1;
  async function post(payload: unknown): Promise<unknown> {
    try {
      return await postJson(url, payload, RPC_TIMEOUT_MS);
    } catch (error) {
      throw new EvmUnavailable(`EVM node unreachable: ${(error as Error).message}`);
    }
  }
  const result = (body: Answer | undefined) => {
    if (!body) throw new EvmUnavailable('EVM node left a batched call unanswered');
    if (body.error) throw new EvmRpcError(body.error.message, body.error.code, body.error.data);
    return body.result;
  };
  return {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      return result((await post({ jsonrpc: '2.0', id: nextId++, method, params })) as Answer) as T;
    },
    async batch(calls) {
      const ids = calls.map(() => nextId++);
      const answers = await post(calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], ...c })));
      if (!Array.isArray(answers)) return [result(answers as Answer)];
      const byId = new Map((answers as Answer[]).map((a) => [a.id, a]));
      return ids.map((id) => result(byId.get(id)));
    },
  };
}

/** The fields of `eth_getBlockByNumber` the facade reads. */
export interface EvmBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  miner: string;
  transactionsRoot: string;
  gasLimit: string;
  transactions: string[];
}

/** The fields of a receipt the facade reads. */
export interface EvmReceipt {
  transactionHash: string;
  blockNumber: string;
  from: string;
  to: string | null;
  contractAddress: string | null;
  gasUsed: string;
  status: string;
  logs: { address: string; topics: string[]; data: string }[];
}

/** The fields of `eth_getTransactionByHash` the facade reads. */
export interface EvmTransaction {
  hash: string;
  from: string;
  to: string | null;
  input: string;
  value: string;
  gas: string;
  blockNumber: string | null;
}

export const toQuantity = (n: number | bigint): string => `0x${n.toString(16)}`;
