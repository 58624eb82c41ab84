/**
 * How the facade maps Tron's resource units onto the EVM. One unit of energy is one unit of EVM gas
 * (the intrinsic cost included): `triggerconstantcontract` reports the gas a call needs as its
 * `energy_used`, and a broadcast call gets `fee_limit / getEnergyFee` gas, so a call whose fee limit
 * cannot buy the energy it needs ends OUT_OF_ENERGY, as on java-tron. Real TVM energy for the same
 * call differs somewhat (the TVM charges bandwidth, not gas, for the transaction itself); the service's
 * estimate margin covers that. Nothing is charged: balances, frozen energy and bandwidth are not
 * modelled.
 */

/** Sun per unit of energy reported in `fee`; Tron mainnet's price since 2024, nominal here. */
export const ENERGY_PRICE_SUN = 210;
/** One TRX is 10^6 sun and one ETH 10^18 wei, so native balances and call values scale by this. */
export const WEI_PER_SUN = 10n ** 12n;
/** java-tron's `getMaxFeeLimit` chain parameter: 15,000 TRX. */
export const MAX_FEE_LIMIT_SUN = 15_000_000_000;

/** What `getchainparameters` reports: a static excerpt of mainnet's values, for clients that ask. */
export const CHAIN_PARAMETERS = [
  { key: 'getMaintenanceTimeInterval', value: 21_600_000 },
  { key: 'getTransactionFee', value: 1000 },
  { key: 'getEnergyFee', value: ENERGY_PRICE_SUN },
  { key: 'getMaxFeeLimit', value: MAX_FEE_LIMIT_SUN },
  { key: 'getCreateAccountFee', value: 100_000 },
  { key: 'getAllowTvmConstantinople', value: 1 },
  { key: 'getAllowTvmIstanbul', value: 1 },
  { key: 'getAllowTvmLondon', value: 1 },
] as const;
