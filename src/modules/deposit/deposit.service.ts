import type { NetworkRegistry } from '../../chains/registry.ts';
import { toEvmAddress } from '../../chains/tron/address.ts';
import type { EntityManager } from '../../db/orm.ts';
import { findPage, setFilters } from '../../db/pagination.ts';
import { notFound, unsupported, validation } from '../../errors.ts';
import { SettlementWallet } from '../merchant/merchant.entity.ts';
import { forwarderAddress, playerKey } from './deposit.address.ts';
import { type DepositNetwork, depositNetworkOf, shownAddress } from './deposit.chain.ts';
import { Deposit, DepositAddress, type DepositStatus, Sweep, type SweepStatus } from './deposit.entity.ts';
import { listHolds, retryHold, type SweepHoldRow } from './sweep-hold.ts';

/**
 * `POST /v1/wallet/address` (section 4.21, D8, D15): the player's standing deposit address on a
 * network, computed by the service (no chain read) and recorded when first issued so the network's
 * scanner watches it. The address is bound to the merchant's settlement wallet of that network as it
 * is now; after a wallet change the same player gets a new address and the old one stays watched.
 */

export interface IssuedAddress {
  playerId: string;
  network: string;
  address: string;
  tokens: string[];
}

export class DepositService {
  constructor(private readonly deps: { networks: NetworkRegistry }) {}

  async issue(
    em: EntityManager,
    merchantId: string,
    input: { playerId: string; network: string },
  ): Promise<IssuedAddress> {
    const config = this.deps.networks.get(input.network);
    if (!config) throw unsupported(`network: unknown network ${input.network}`);
    const network = depositNetworkOf(config);
    if (!network) throw unsupported(`network ${input.network} has no standing deposit addresses`);
    const wallet = await em.findOne(SettlementWallet, { merchant: merchantId, network: network.id });
    if (!wallet) throw unsupported(`no settlement wallet is configured for network ${network.id}`);
    const bound = toEvmAddress(wallet.address).toLowerCase();
    const key = playerKey(merchantId, input.playerId);
    const address = forwarderAddress(network.site, bound, key).toLowerCase();
    await record(em, { merchantId, network, playerId: input.playerId, wallet: bound, key, address });
    return {
      playerId: input.playerId,
      network: network.id,
      address: shownAddress(network, address),
      tokens: network.tokens.map((t) => t.symbol),
    };
  }

  /** Deposits newest first (operators). */
  async listDeposits(
    em: EntityManager,
    filter: {
      merchantId?: string | null;
      network?: string | null;
      playerId?: string | null;
      status?: DepositStatus | null;
    },
    first: number,
    after?: string | null,
  ) {
    const where = setFilters({
      merchant: filter.merchantId,
      network: filter.network,
      playerId: filter.playerId,
      status: filter.status,
    });
    return findPage(em, Deposit, where, { first, after }, ['address']);
  }

  /** Issued addresses of a merchant (optionally one player), newest first. */
  addresses(em: EntityManager, merchantId: string, playerId?: string | null) {
    return em.find(
      DepositAddress,
      { merchant: merchantId, ...(playerId ? { playerId } : {}) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 500 },
    );
  }

  /** Sweeps newest first (operators). */
  async listSweeps(
    em: EntityManager,
    filter: { network?: string | null; status?: SweepStatus | null },
    first: number,
    after?: string | null,
  ) {
    const where = setFilters({ network: filter.network, status: filter.status });
    return findPage(em, Sweep, where, { first, after });
  }

  /** Forwarders whose sweeps fail (operators): backing off, or parked with their reason. */
  async sweepHolds(em: EntityManager, filter: { network?: string | null; parked?: boolean | null }) {
    return (await listHolds(em, filter)).map((r) => this.shownHold(r));
  }

  /** An operator's retry of a failing or parked forwarder: swept with the next sweep. */
  async retrySweep(
    em: EntityManager,
    input: { network: string; address: string; token: string },
  ): Promise<SweepHoldView> {
    const config = this.deps.networks.get(input.network);
    const network = config && depositNetworkOf(config);
    if (!network) throw unsupported(`network ${input.network} has no standing deposit addresses`);
    const token = network.tokens.find((t) => t.symbol === input.token);
    if (!token) throw unsupported(`token: ${input.token} is not a token of ${network.id}`);
    let address: string;
    try {
      address = toEvmAddress(input.address).toLowerCase();
    } catch {
      throw validation(`address: not an address of ${network.id}`);
    }
    const row = await retryHold(em, { network: network.id, address, tokenAddress: token.address });
    if (!row) throw notFound('held sweep');
    return this.shownHold(row);
  }

  private shownHold(r: SweepHoldRow): SweepHoldView {
    const config = this.deps.networks.get(r.network);
    const network = config && depositNetworkOf(config);
    const token = network?.tokens.find((t) => t.address === r.tokenAddress);
    return {
      ...r,
      address: network ? shownAddress(network, r.address) : r.address,
      token: token?.symbol ?? r.tokenAddress,
      decimals: token?.decimals ?? 0,
    };
  }

  /** What done sweeps moved per network and token: to settlement wallets, and the fee wallet's take. */
  async sweepTotals(em: EntityManager): Promise<SweepTotal[]> {
    const rows = await em.execute<
      { network: string; token: string; swept: string; fees: string; sweeps: string }[]
    >(
      `select s.network, o.token, sum(o."amountRaw"::numeric)::text as swept, sum(o."feeRaw"::numeric)::text as fees,
              count(distinct s.id)::text as sweeps
         from sweeps s, jsonb_to_recordset(s.outcomes) as o(token text, "amountRaw" text, "feeRaw" text)
        where s.status = 'done'
        group by s.network, o.token
        order by s.network, o.token`,
    );
    return rows.map((r) => {
      const config = this.deps.networks.get(r.network);
      const token = config?.tokens.find((t) => t.address.toLowerCase() === r.token);
      return {
        network: r.network,
        token: token?.symbol ?? r.token,
        decimals: token?.decimals ?? 0,
        sweptRaw: r.swept,
        feesRaw: r.fees,
        sweeps: Number(r.sweeps),
        feeWallet: config?.feeWallet ?? null,
      };
    });
  }
}

/** A forwarder and token whose sweeps fail, as operators see it (amounts in whole units). */
export interface SweepHoldView extends SweepHoldRow {
  token: string;
  decimals: number;
}

export interface SweepTotal {
  network: string;
  token: string;
  decimals: number;
  sweptRaw: string;
  feesRaw: string;
  sweeps: number;
  feeWallet: string | null;
}

/**
 * Records the address once: concurrent first calls insert one row (the unique key decides), and a
 * repeat finds the row as it is. The address is a function of the row's key, so nothing needs reading.
 */
async function record(
  em: EntityManager,
  row: {
    merchantId: string;
    network: DepositNetwork;
    playerId: string;
    wallet: string;
    key: string;
    address: string;
  },
): Promise<void> {
  await em.execute(
    `insert into deposit_addresses (merchant_id, network, player_id, wallet, player_key, address, created_at)
     values (?, ?, ?, ?, ?, ?, now())
     on conflict (merchant_id, network, player_id, wallet) do nothing`,
    [row.merchantId, row.network.id, row.playerId, row.wallet, row.key, row.address],
  );
}
