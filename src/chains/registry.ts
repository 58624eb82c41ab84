import type { NetworkConfig, NetworkFile, TokenConfig } from './networks.ts';

/** The configured networks, looked up by id. */
export class NetworkRegistry {
  private readonly byId: Map<string, NetworkConfig>;

  constructor(file: NetworkFile) {
    this.byId = new Map(file.networks.map((n) => [n.id, n]));
  }

  get(id: string): NetworkConfig | undefined {
    return this.byId.get(id);
  }

  list(): NetworkConfig[] {
    return [...this.byId.values()];
  }

  token(networkId: string, symbol: string): TokenConfig | undefined {
    return this.byId.get(networkId)?.tokens.find((t) => t.symbol === symbol);
  }
}
