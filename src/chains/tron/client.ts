import type { EndpointHealth } from '../evm/rpc/endpoints.ts';
import type { NetworkConfig } from '../networks.ts';
import { type ChainLogger, silentLogger } from '../types.ts';
import { broadcastSigned, type SignedTronTransaction } from './broadcast.ts';
import { buildApprove, buildTrigger, type TriggerRequest, type TronBuiltTransaction } from './build.ts';
import type { DecodedTronTransaction } from './decode.ts';
import { createTronHttp, type TronHttp, type TronHttpOptions } from './http.ts';
import { scanTransfers, type TransferScan } from './scan.ts';
import { blockNumber, getTronTransaction, getTxState, type TronTxState } from './status.ts';
import { trc20Allowance, trc20Balance, trc20Decimals } from './trc20.ts';

/** What the Tron adapter needs of a network entry (a full NetworkConfig fits). */
export type TronNetwork = Pick<NetworkConfig, 'id' | 'chainId' | 'rpcUrls'> & {
  tokens?: readonly { address: string }[];
};

/**
 * Everything the service does with the Tron network. Addresses are accepted in any spelling (`T…`,
 * `41…`, `0x…`) and returned in `0x` form. Failures are AppErrors: `unavailable` when no endpoint
 * answers (or answers nonsense), `validation` for bad input or a transaction the network refuses.
 */
export interface TronClient {
  readonly networkId: string;
  /** What the TVM returns for `block.chainid` (D7). */
  readonly chainId: number;
  getBlockNumber(): Promise<number>;
  getSolidifiedBlockNumber(): Promise<number>;
  balanceOf(token: string, owner: string): Promise<bigint>;
  allowance(token: string, owner: string, spender: string): Promise<bigint>;
  decimals(token: string): Promise<number>;
  buildTrigger(request: TriggerRequest): Promise<TronBuiltTransaction>;
  /** `approve(spender, amount)` from `owner`, the section 2.7 transaction; amount in base units. */
  buildApprove(params: {
    token: string;
    owner: string;
    spender: string;
    amount: bigint;
  }): Promise<TronBuiltTransaction>;
  /** Broadcasts a checked, signed transaction (see `signedFromParts`, `parseSignedTransaction`). */
  broadcast(signed: SignedTronTransaction): Promise<{ txId: string; duplicate: boolean }>;
  /** pending / confirmed / failed / not_found, plus whether the block is solidified. */
  getTxState(txId: string): Promise<TronTxState>;
  getTransaction(txId: string): Promise<DecodedTronTransaction | null>;
  /** TRC-20 Transfers in solidified blocks only; `tokens` defaults to the network's tokens. */
  scanTransfers(params: {
    fromBlock: number;
    toBlock?: number;
    tokens?: readonly string[];
    maxBlocks?: number;
  }): Promise<TransferScan>;
  health(): EndpointHealth[];
}

export interface TronClientOptions {
  network: TronNetwork;
  logger?: ChainLogger;
  http?: Partial<TronHttpOptions>;
  /** Fee limit of built transactions, sun. */
  feeLimitSun?: number;
  /** How long built transactions stay valid, ms. */
  validityMs?: number;
  /** An existing HTTP API of the network to share (endpoint health included); built when absent. */
  shared?: TronHttp;
}

export function createTronClient({
  network,
  logger = silentLogger,
  ...options
}: TronClientOptions): TronClient {
  const http =
    options.shared ?? createTronHttp({ network, logger, ...(options.http ? { options: options.http } : {}) });
  const defaults = {
    ...(options.feeLimitSun === undefined ? {} : { feeLimit: options.feeLimitSun }),
    ...(options.validityMs === undefined ? {} : { validityMs: options.validityMs }),
  };
  const networkTokens = (network.tokens ?? []).map((t) => t.address);
  return {
    networkId: network.id,
    chainId: network.chainId,
    getBlockNumber: () => blockNumber(http, false),
    getSolidifiedBlockNumber: () => blockNumber(http, true),
    balanceOf: (token, owner) => trc20Balance(http, token, owner),
    allowance: (token, owner, spender) => trc20Allowance(http, token, owner, spender),
    decimals: (token) => trc20Decimals(http, token),
    buildTrigger: (request) => buildTrigger(http, { ...defaults, ...request }),
    buildApprove: (params) => buildApprove(http, { ...defaults, ...params }),
    broadcast: (signed) => broadcastSigned(http, signed),
    getTxState: (txId) => getTxState(http, txId),
    getTransaction: (txId) => getTronTransaction(http, txId),
    scanTransfers: ({ tokens = networkTokens, ...range }) => scanTransfers(http, { ...range, tokens }),
    health: () => http.health(),
  };
}
