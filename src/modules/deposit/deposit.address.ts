import { AbiCoder, concat, getAddress, keccak256, toBeHex } from 'ethers';

/**
 * Standing deposit addresses, computed by the service (D15): the CREATE2 address of the
 * ForwarderFactory's clone of (settlement wallet, player key), before anything is deployed. The rule
 * is the chain's: `keccak256(prefix ‖ deployer ‖ salt ‖ keccak256(initCode))[12:]` with `0xff` on EVM
 * chains and `0x41` on the TVM. The factory is deployed with its chain's prefix, so its own `predict`
 * agrees (test/contracts/forwarders.test.ts), and its sweeps follow the clone actually created.
 */

export type Create2Prefix = '0xff' | '0x41';

/** The CREATE2 address of `initCodeHash` deployed by `deployer` (`0x` form) with `salt`. */
export function create2Address(
  prefix: Create2Prefix,
  deployer: string,
  salt: string,
  initCodeHash: string,
): string {
  const hash = keccak256(concat([prefix, getAddress(deployer), salt, initCodeHash]));
  return getAddress(`0x${hash.slice(-40)}`);
}

/**
 * EIP-1167 minimal proxy to `implementation` with immutable `args` appended to its code, exactly as
 * OpenZeppelin's `Clones.cloneDeterministicWithImmutableArgs` deploys it (plain EIP-1167 when `args`
 * is empty and `withArgs` false).
 */
export function cloneInitCode(implementation: string, args = '0x', withArgs = true): string {
  const proxy = ['0x363d3d373d3d3d363d73', getAddress(implementation), '0x5af43d82803e903d91602b57fd5bf3'];
  if (!withArgs) return concat(['0x3d602d80600a3d3981f3', ...proxy]);
  const argsLength = (args.length - 2) / 2;
  return concat(['0x61', toBeHex(argsLength + 0x2d, 2), '0x3d81600a3d39f3', ...proxy, args]);
}

/**
 * The player's key: derived from the merchant and its `player_id`, so the `player_id` never appears
 * on chain and two merchants' players never share an address.
 */
export const playerKey = (merchantId: string, playerId: string): string =>
  keccak256(AbiCoder.defaultAbiCoder().encode(['string', 'string'], [merchantId, playerId]));

/** The factory's salt of (settlement wallet, player key): `keccak256(abi.encode(wallet, key))`. */
export const forwarderSalt = (wallet: string, key: string): string =>
  keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'bytes32'], [getAddress(wallet), key]));

export interface ForwarderSite {
  prefix: Create2Prefix;
  /** ForwarderFactory (`0x` form). */
  factory: string;
  /** Its DepositForwarder implementation (`0x` form). */
  implementation: string;
}

/** The deposit address (`0x` form) the factory deploys for (`wallet`, `key`). */
export function forwarderAddress(site: ForwarderSite, wallet: string, key: string): string {
  const initCode = cloneInitCode(site.implementation, getAddress(wallet).toLowerCase());
  return create2Address(site.prefix, site.factory, forwarderSalt(wallet, key), keccak256(initCode));
}
