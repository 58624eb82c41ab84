/**
 * The facade's JSON-RPC client for its anvil chain. Transport failures are EvmUnavailable (the facade
 * answers 503 so clients fail over); JSON-RPC errors are EvmRpcError (the call itself was refused).
 */

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
}

export function createEvmRpc(url: string): EvmRpc {
  let nextId = 1;
  return {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      let body: { result?: T; error?: { message: string; code: number; data?: unknown } };
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
          signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
        });
        body = (await res.json()) as typeof body;
      } catch (error) {
        throw new EvmUnavailable(`EVM node unreachable: ${(error as Error).message}`);
      }
      if (body.error) throw new EvmRpcError(body.error.message, body.error.code, body.error.data);
      return body.result as T;
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
