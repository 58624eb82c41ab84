import { checksumAddress } from '../../chains/evm/checksum.ts';
import { create2PrefixOf, type NetworkConfig, type TokenConfig } from '../../chains/networks.ts';
import type { NetworkRegistry } from '../../chains/registry.ts';
import { evmToTron } from '../../chains/tron/address.ts';
import { parseUnits } from '../../money.ts';
import type { ForwarderSite } from './deposit.address.ts';

/**
 * What standing addresses need of a network: its ForwarderFactory site (factory, implementation,
 * CREATE2 rule) and its tokens with their fee and sweep minimum in base units.
 */
export interface DepositNetwork {
  id: string;
  kind: NetworkConfig['kind'];
  site: ForwarderSite;
  /** Where sweep fees go (the factory's fee wallet; shown to operators). */
  feeWallet: string | null;
  tokens: DepositToken[];
}

export interface DepositToken {
  symbol: string;
  /** Lowercase `0x` form. */
  address: string;
  decimals: number;
  feeRaw: bigint;
  sweepMinimumRaw: bigint;
}

const tokenOf = (t: TokenConfig): DepositToken => ({
  symbol: t.symbol,
  address: t.address.toLowerCase(),
  decimals: t.decimals,
  feeRaw: parseUnits(t.depositFee, t.decimals),
  sweepMinimumRaw: parseUnits(t.sweepMinimum, t.decimals),
});

/** The network's standing-address setup, or undefined when it has no ForwarderFactory. */
export function depositNetworkOf(network: NetworkConfig): DepositNetwork | undefined {
  const { forwarderFactory: factory, forwarderImplementation: implementation } = network.contracts;
  if (!factory || !implementation) return undefined;
  return {
    id: network.id,
    kind: network.kind,
    site: { prefix: create2PrefixOf(network), factory, implementation },
    feeWallet: network.feeWallet ?? null,
    tokens: network.tokens.map(tokenOf),
  };
}

export const depositNetworks = (networks: NetworkRegistry): DepositNetwork[] =>
  networks.list().flatMap((n) => depositNetworkOf(n) ?? []);

/**
 * An address the service holds (lowercase `0x`) as shown to merchants: `T…` on tron, EIP-55 `0x`
 * elsewhere (checksummed once per credited deposit by the scanner: the fast keccak of checksum.ts).
 */
export const shownAddress = (network: Pick<DepositNetwork, 'kind'>, address: string): string =>
  network.kind === 'tron' ? evmToTron(address) : checksumAddress(address);
