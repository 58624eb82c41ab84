import { createEvmClient, type EvmClient, type LogScanOptions } from './evm/index.ts';
import type { NetworkConfig } from './networks.ts';
import { createTronClient, type TronClient } from './tron/client.ts';
import { createTronHttp, type TronHttp } from './tron/http.ts';
import type { ChainLogger } from './types.ts';

/**
 * One client per network for the whole process, created on first use: the API's reads, the chain
 * followers and the jobs share endpoint health (and on EVM the log scanner's learnt range size).
 */
export class ChainClients {
  private readonly clients = new Map<string, EvmClient>();
  private readonly tron = new Map<string, TronHttp>();
  private readonly tronClients = new Map<string, TronClient>();

  constructor(
    private readonly logger: ChainLogger,
    /** Log-scan tuning for every client (tests and benches force small chunks). */
    private readonly logs?: Partial<LogScanOptions>,
  ) {}

  evm(network: NetworkConfig): EvmClient {
    if (network.kind !== 'evm') throw new Error(`network ${network.id} is not an EVM network`);
    let client = this.clients.get(network.id);
    if (!client) {
      client = createEvmClient({ network, logger: this.logger, logs: this.logs });
      this.clients.set(network.id, client);
    }
    return client;
  }

  /** The HTTP API of a Tron network (endpoint failover included). */
  tronHttp(network: NetworkConfig): TronHttp {
    if (network.kind !== 'tron') throw new Error(`network ${network.id} is not a Tron network`);
    let http = this.tron.get(network.id);
    if (!http) {
      http = createTronHttp({ network, logger: this.logger });
      this.tron.set(network.id, http);
    }
    return http;
  }

  /** The Tron adapter of a network, over the same HTTP API (and endpoint health) as {@link tronHttp}. */
  tronClient(network: NetworkConfig): TronClient {
    let client = this.tronClients.get(network.id);
    if (!client) {
      client = createTronClient({ network, logger: this.logger, shared: this.tronHttp(network) });
      this.tronClients.set(network.id, client);
    }
    return client;
  }
}
