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

/** Merchants whose last wallets are remembered; past this the memory starts over (a guess, not state). */
const MAX_REMEMBERED = 10_000;

type WalletRow = { network: string; address: string };

export class BalanceService {
  /** Each merchant's wallets as last read: what the next read's chain calls start from (see balances). */
  private readonly lastWallets = new Map<string, WalletRow[]>();

  constructor(
    private readonly deps: {
      networks: NetworkRegistry;
      clients: ChainClients;
      /** The hot path's prepared statements (the wallets read). */
      sql: SqlPool;
    },
  ) {}

  /**
   * The wallets are read from the database on every call, and the chain reads of the wallets last
   * read start alongside: when the database answers with the same wallets (nearly always), the
   * answer is those reads, and the round trip to the database no longer adds to the chain's. When
   * the wallets changed, those reads are dropped and the wallets just read are read instead.
   */
  async balances(
    _em: EntityManager,
    merchantId: string,
  ): Promise<{ wallet: string; balances: BalanceEntry[] }> {
    const guess = this.lastWallets.get(merchantId);
    const early = guess && this.readWallets(guess);
    // Settled here too, so that dropped reads (or a failed database read) leave no unhandled rejection.
    early?.catch(() => undefined);
    const { rows } = await this.deps.sql.query<WalletRow>(walletsRead, [merchantId]);
    if (this.lastWallets.size >= MAX_REMEMBERED && !this.lastWallets.has(merchantId))
      this.lastWallets.clear();
    this.lastWallets.set(merchantId, rows);
    return early && sameWallets(guess, rows) ? early : this.readWallets(rows);
  }

  private async readWallets(rows: WalletRow[]): Promise<{ wallet: string; balances: BalanceEntry[] }> {
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

/** The same wallets on the same networks, in any order. */
function sameWallets(a: WalletRow[], b: WalletRow[]): boolean {
  if (a.length !== b.length) return false;
  const byNetwork = new Map(a.map((w) => [w.network, w.address]));
  return b.every((w) => byNetwork.get(w.network) === w.address);
}
