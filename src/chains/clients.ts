import { createEvmClient, type EvmClient, type LogScanOptions } from './evm/index.ts';
import type { NetworkConfig } from './networks.ts';
import type { ChainLogger } from './types.ts';

/**
 * One EVM client per network for the whole process, created on first use: the API's reads, the
 * chain followers and the jobs share endpoint health and the log scanner's learnt range size.
 */
export class ChainClients {
  private readonly clients = new Map<string, EvmClient>();

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
}
