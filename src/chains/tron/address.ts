import { getAddress } from 'ethers';
import { utils } from 'tronweb';
import { validation } from '../../errors.ts';

/**
 * Tron addresses in their three spellings: base58check (`T…`, what people see), 21-byte hex with
 * the 0x41 network prefix (`41…`, what the node's JSON and protobuf carry) and the 20-byte EVM form
 * (`0x…`, what the TVM and our EIP-712 payloads use). The same secp256k1 key owns all three.
 */

const TRON_PREFIX = '41';
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TRON_HEX = /^41[0-9a-fA-F]{40}$/;

/** Whether `value` is a base58check Tron address with a valid checksum and the mainnet prefix. */
export const isTronAddress = (value: unknown): value is string =>
  typeof value === 'string' && utils.crypto.isAddressValid(value);

/** `T…` → `0x…` (EIP-55 checksummed). A bad checksum or shape is a `validation` error. */
export function tronToEvm(address: string): string {
  if (!isTronAddress(address)) throw validation('not a valid Tron address', { address });
  return getAddress(`0x${utils.address.toHex(address).slice(TRON_PREFIX.length)}`);
}

/**
 * Checks a `0x…` address. Mixed-case input must carry a valid EIP-55 checksum; all-lower or
 * all-upper input has none to check.
 */
function checkedEvm(address: string): string {
  if (!EVM_ADDRESS.test(address)) throw validation('not a valid 0x address', { address });
  try {
    return getAddress(address);
  } catch {
    throw validation('bad EIP-55 checksum', { address });
  }
}

/** `0x…` → `T…`; a malformed address or a bad EIP-55 checksum is a `validation` error. */
export const evmToTron = (address: string): string =>
  utils.address.fromHex(`${TRON_PREFIX}${checkedEvm(address).slice(2).toLowerCase()}`);

/** Any of the three spellings → `0x…` (checksummed); anything else is a `validation` error. */
export function toEvmAddress(address: string): string {
  if (TRON_HEX.test(address)) return getAddress(`0x${address.slice(TRON_PREFIX.length).toLowerCase()}`);
  if (address.startsWith('0x')) return checkedEvm(address);
  return tronToEvm(address);
}

/** Any of the three spellings → the node's `41…` hex form (lowercase). */
export const toTronHex = (address: string): string =>
  `${TRON_PREFIX}${toEvmAddress(address).slice(2).toLowerCase()}`;

/** Any of the three spellings → `T…`. */
export const toTronAddress = (address: string): string => utils.address.fromHex(toTronHex(address));
