import { AppError, unavailable } from '../../errors.ts';
import type { NetworkConfig } from '../networks.ts';
import { type BlockHeader, type ChainLogger, silentLogger, type TxState } from '../types.ts';
import { encodeApprove } from './abi.ts';
import { type BlockRef, getBlockHeader, getBlockHeaders, getBlockNumber } from './blocks.ts';
import type { EvmLog, LogFilter, LogRange } from './logs-parse.ts';
import { createLogScanner, type LogChunk, type LogScanOptions } from './logs-scan.ts';
import { type BlockTag, createContractReader, type ReadCall, type ReadResult } from './reads.ts';
import type { EndpointHealth } from './rpc/endpoints.ts';
import { RpcError } from './rpc/errors.ts';
import { createRpcTransport, type RpcTransport, type RpcTransportOptions } from './rpc/transport.ts';
import {
  buildTransaction,
  type FeeMode,
  type LegacyTx,
  type TxRequest,
  type UnsignedTx,
} from './tx-build.ts';
import { broadcastTransaction } from './tx-send.ts';
import { getReceipt, getTransaction, getTxState, type TxInfo, type TxReceipt } from './tx-status.ts';

/** What the EVM adapter needs of a network entry (a full NetworkConfig fits). */
export type EvmNetwork = Pick<NetworkConfig, 'id' | 'chainId' | 'rpcUrls'> & {
  contracts?: Pick<NetworkConfig['contracts'], 'multicall3'>;
};

/** Everything the service does with one EVM network. Failures are AppErrors: `unavailable` when the
 * network cannot be reached, `validation` for bad input or a transaction the node refuses. */
export interface EvmClient {
  readonly networkId: string;
  readonly chainId: number;
  readonly transport: RpcTransport;
  getBlockNumber(): Promise<number>;
  getBlockHeader(block: BlockRef): Promise<BlockHeader | null>;
  getBlockHeaders(numbers: readonly number[]): Promise<(BlockHeader | null)[]>;
  /** One eth_getLogs over the whole range. */
  getLogs(range: LogRange): Promise<EvmLog[]>;
  /** Adaptive chunks over the range, in order; checkpoint after each. */
  scanLogs(range: LogRange): AsyncGenerator<LogChunk>;
  /** The filter's logs of each block named by hash, in one batch (exactly those blocks, EIP-234). */
  getLogsByBlockHashes(filter: LogFilter, hashes: readonly string[]): Promise<EvmLog[][]>;
  /** Batched ERC-20/native reads, one result per call (see reads.ts). */
  read(calls: readonly ReadCall[], options?: { blockTag?: BlockTag }): Promise<ReadResult[]>;
  getNativeBalance(owner: string): Promise<bigint>;
  buildTransaction(request: TxRequest, feeMode: 'legacy'): Promise<LegacyTx>;
  buildTransaction(request: TxRequest, feeMode?: FeeMode): Promise<UnsignedTx>;
  /** Legacy (gasPrice) `approve(spender, amount)` from `owner`, the section 2.7 transaction. */
  buildApprove(params: { token: string; owner: string; spender: string; amount: bigint }): Promise<LegacyTx>;
  /** Broadcasts a signed raw transaction; returns its hash. */
  broadcast(rawTransaction: string): Promise<string>;
  getTransaction(hash: string): Promise<TxInfo | null>;
  getReceipt(hash: string): Promise<TxReceipt | null>;
  /** pending / confirmed / failed / not_found (section 3.6). */
  getTxState(hash: string): Promise<TxState>;
  /** RPC endpoint health. */
  health(): EndpointHealth[];
}

export interface EvmClientOptions {
  network: EvmNetwork;
  logger?: ChainLogger;
  rpc?: Partial<RpcTransportOptions>;
  logs?: Partial<LogScanOptions>;
}

export function createEvmClient({ network, logger = silentLogger, rpc, logs }: EvmClientOptions): EvmClient {
  const transport = createRpcTransport({ network, logger, options: rpc });
  const reader = createContractReader({ transport, multicall3: network.contracts?.multicall3, logger });
  const scanner = createLogScanner({ transport, logger, options: logs });

  // A JSON-RPC error that reaches here answered a request that cannot be wrong (a block number, a
  // receipt): the node is misbehaving, which for the caller is a degraded dependency.
  const guard = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof RpcError)
        throw unavailable(`network ${network.id}: ${what} failed: ${error.message}`, error);
      throw error;
    }
  };

  async function build(request: TxRequest, feeMode: FeeMode = 'auto'): Promise<UnsignedTx> {
    return guard('transaction build', () => buildTransaction(transport, network.chainId, request, feeMode));
  }

  return {
    networkId: network.id,
    chainId: network.chainId,
    transport,
    getBlockNumber: () => guard('eth_blockNumber', () => getBlockNumber(transport)),
    getBlockHeader: (block) => guard('eth_getBlockByNumber', () => getBlockHeader(transport, block)),
    getBlockHeaders: (numbers) => guard('eth_getBlockByNumber', () => getBlockHeaders(transport, numbers)),
    getLogs: (range) => scanner.getLogs(range),
    scanLogs: (range) => scanner.scan(range),
    getLogsByBlockHashes: (filter, hashes) => scanner.byBlockHashes(filter, hashes),
    read: (calls, options) => guard('contract read', () => reader.read(calls, options)),
    async getNativeBalance(owner) {
      const [result] = await guard('eth_getBalance', () => reader.read([{ kind: 'nativeBalance', owner }]));
      if (!result!.ok) throw new AppError('unavailable', `network ${network.id}: ${result!.error}`);
      return result!.value;
    },
    buildTransaction: build as EvmClient['buildTransaction'],
    async buildApprove({ token, owner, spender, amount }) {
      const data = encodeApprove(spender, amount);
      return (await build({ from: owner, to: token, data }, 'legacy')) as LegacyTx;
    },
    broadcast: (raw) =>
      guard('eth_sendRawTransaction', () => broadcastTransaction(transport, raw, network.chainId)),
    getTransaction: (hash) => guard('eth_getTransactionByHash', () => getTransaction(transport, hash)),
    getReceipt: (hash) => guard('eth_getTransactionReceipt', () => getReceipt(transport, hash)),
    getTxState: (hash) => guard('transaction status', () => getTxState(transport, hash)),
    health: () => transport.health(),
  };
}
