import type { ChainClients } from '../../chains/clients.ts';
import { address } from '../../chains/evm/util.ts';
import type { NetworkConfig, TokenConfig } from '../../chains/networks.ts';
import type { NetworkRegistry } from '../../chains/registry.ts';
import { evmToTron, tronToEvm } from '../../chains/tron/address.ts';
import type { EntityManager } from '../../db/orm.ts';
import { type SqlPool, statement } from '../../db/sql.ts';
import { unsupported } from '../../errors.ts';
import { withTimeout } from '../../lib/timeout.ts';
import { formatUnits } from '../../money.ts';

/**
 * The merchant's settlement wallets' token balances (section 2.6, 4.20, D13): every token of every
 * network the merchant has a wallet on, in network-file order. Networks are read in parallel, each in
 * one round trip on EVM (Multicall3 `aggregate3`, per-call failure) and TRC-20 reads on `tron`, each
 * bounded in time: a token whose read fails, or every token of a network whose nodes do not answer,
 * carries `error` instead of `amount` and the rest still answer.
 */

/** Checksummed (memoized: the same wallets and tokens come back on every read). */
const checksum = (value: string) => address(value, 'address');

/** Longest a network's reads may take before its entries answer with an error. */
export const NETWORK_READ_TIMEOUT_MS = 5_000;

export interface BalanceEntry {
  network: string;
  token: string;
  /** Token contract (`T…` on tron). */
  address: string;
  decimals: number;
  /** The wallet this entry reads. */
  wallet: string;
  amount?: string;
  raw?: string;
  error?: string;
}

/** The merchant's settlement wallets: one prepared statement, no entity built (a read of every call). */
const walletsRead = statement(
  'balance_wallets',
  'SELECT network, address FROM settlement_wallets WHERE merchant_id = $1',
);

export class BalanceService {
  constructor(
    private readonly deps: {
      networks: NetworkRegistry;
      clients: ChainClients;
      /** The hot path's prepared statements (the wallets read). */
      sql: SqlPool;
    },
  ) {}

  async balances(
    _em: EntityManager,
    merchantId: string,
  ): Promise<{ wallet: string; balances: BalanceEntry[] }> {
    const { rows } = await this.deps.sql.query<{ network: string; address: string }>(walletsRead, [
      merchantId,
    ]);
    const byNetwork = new Map(rows.map((w) => [w.network, w.address]));
    const networks = this.deps.networks.list().filter((n) => byNetwork.has(n.id));
    if (networks.length === 0) throw unsupported('no settlement wallet is configured for this merchant');
    const firstEvm = networks.find((n) => n.kind === 'evm');
    const top = firstEvm ? checksum(byNetwork.get(firstEvm.id)!) : byNetwork.get(networks[0]!.id)!;
    const perNetwork = await Promise.all(networks.map((n) => this.read(n, byNetwork.get(n.id)!)));
    return { wallet: top, balances: perNetwork.flat() };
  }

  private async read(network: NetworkConfig, wallet: string): Promise<BalanceEntry[]> {
    const shown = network.kind === 'tron' ? wallet : checksum(wallet);
    const entry = (token: TokenConfig): BalanceEntry => ({
      network: network.id,
      token: token.symbol,
      address: network.kind === 'tron' ? evmToTron(token.address) : checksum(token.address),
      decimals: token.decimals,
      wallet: shown,
    });
    const settle = (token: TokenConfig, raw: bigint | null, error?: string): BalanceEntry =>
      raw === null
        ? { ...entry(token), error: error ?? 'read failed' }
        : { ...entry(token), amount: formatUnits(raw, token.decimals), raw: raw.toString() };
    try {
      const results = await withTimeout(this.reads(network, wallet), NETWORK_READ_TIMEOUT_MS);
      return network.tokens.map((t, i) => settle(t, results[i]!.raw, results[i]!.error));
    } catch (error) {
      const reason = `network ${network.id} unavailable: ${(error as Error).message}`.slice(0, 200);
      return network.tokens.map((t) => settle(t, null, reason));
    }
  }

  private async reads(
    network: NetworkConfig,
    wallet: string,
  ): Promise<{ raw: bigint | null; error?: string }[]> {
    if (network.kind === 'tron') {
      const tron = this.deps.clients.tronClient(network);
      const owner = tronToEvm(wallet);
      return Promise.all(
        network.tokens.map((t) =>
          tron.balanceOf(t.address, owner).then(
            (raw) => ({ raw }),
            (error: Error) => ({ raw: null, error: error.message.slice(0, 200) }),
          ),
        ),
      );
    }
    const results = await this.deps.clients
      .evm(network)
      .read(network.tokens.map((t) => ({ kind: 'balanceOf' as const, token: t.address, owner: wallet })));
    return results.map((r) => (r.ok ? { raw: r.value } : { raw: null, error: r.error }));
  }
}
