/**
 * EIP-712 `typed_data` for payouts (api.md 2.4 and 5.3, decisions D7): pure builders, signature `v`
 * normalisation and signer recovery. The shapes here are what the merchant's wallet signs and what
 * PayoutRouter / BatchPayoutRouter verify on-chain, so they must match the contracts field for field.
 */

import { AbiCoder, getAddress, keccak256, TypedDataEncoder, verifyTypedData } from 'ethers';
import { keccakHex } from './evm/keccak.ts';
import { getAddressRemembered } from './evm/util.ts';

/** One `{name, type}` entry of an EIP-712 type. */
export interface TypedDataField {
  name: string;
  type: string;
}

/** The EIP-712 domain as sent to wallets: `chainId` is a JSON number. */
export interface PayoutDomain {
  name: 'PayoutRouter' | 'BatchPayoutRouter';
  version: '1';
  chainId: number;
  verifyingContract: string;
}

/** `typed_data` of a single payout (api.md 2.4). Amount, nonce and deadline are decimal strings. */
export interface PayoutTypedData {
  types: { EIP712Domain: TypedDataField[]; PayoutOrder: TypedDataField[] };
  primaryType: 'PayoutOrder';
  domain: PayoutDomain & { name: 'PayoutRouter' };
  message: {
    token: string;
    merchant: string;
    recipient: string;
    amount: string;
    nonce: string;
    deadline: string;
  };
}

/** `typed_data` of a batch payout (api.md 2.4). */
export interface BatchTypedData {
  types: { EIP712Domain: TypedDataField[]; PayoutBatch: TypedDataField[]; PayoutItem: TypedDataField[] };
  primaryType: 'PayoutBatch';
  domain: PayoutDomain & { name: 'BatchPayoutRouter' };
  message: {
    token: string;
    merchant: string;
    items: { recipient: string; amount: string }[];
    nonce: string;
    deadline: string;
  };
}

/** Either kind of payout `typed_data`. */
export type AnyPayoutTypedData = PayoutTypedData | BatchTypedData;

const EIP712_DOMAIN: TypedDataField[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];

const PAYOUT_ORDER: TypedDataField[] = [
  { name: 'token', type: 'address' },
  { name: 'merchant', type: 'address' },
  { name: 'recipient', type: 'address' },
  { name: 'amount', type: 'uint256' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
];

const PAYOUT_BATCH: TypedDataField[] = [
  { name: 'token', type: 'address' },
  { name: 'merchant', type: 'address' },
  { name: 'items', type: 'PayoutItem[]' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
];

const PAYOUT_ITEM: TypedDataField[] = [
  { name: 'recipient', type: 'address' },
  { name: 'amount', type: 'uint256' },
];

const UINT256_MAX = (1n << 256n) - 1n;

/** Integer-ish inputs: bigint preferred; numbers must be safe integers, strings plain decimal digits. */
export type UintInput = bigint | number | string;

function uint(value: UintInput, field: string, positive = false): string {
  let v: bigint;
  if (typeof value === 'bigint') v = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) v = BigInt(value);
  else if (typeof value === 'string' && /^[0-9]+$/.test(value)) v = BigInt(value);
  else throw new TypeError(`${field}: not an unsigned integer: ${String(value)}`);
  if (v < 0n || v > UINT256_MAX) throw new RangeError(`${field}: out of uint256 range`);
  if (positive && v === 0n) throw new RangeError(`${field}: must be positive`);
  return v.toString(10);
}

function chainIdNumber(chainId: UintInput): number {
  const n = Number(uint(chainId, 'chainId', true));
  // The API promises a JSON number; ids beyond 2^53 would silently lose precision.
  if (!Number.isSafeInteger(n)) throw new RangeError('chainId: does not fit a JSON number exactly');
  return n;
}

/** Inputs shared by single and batch builders. Addresses are `0x` hex (on tron: the 20-byte form). */
interface CommonInput {
  chainId: UintInput;
  /** The router contract allowed to execute (PayoutRouter or BatchPayoutRouter). */
  router: string;
  token: string;
  /** The payout wallet; the signature must recover to it. */
  merchant: string;
  nonce: UintInput;
  /** Unix seconds. */
  deadline: UintInput;
}

/** Input of {@link buildPayoutTypedData}. `amount` is in token base units. */
export interface PayoutOrderInput extends CommonInput {
  recipient: string;
  amount: UintInput;
}

/** Input of {@link buildBatchTypedData}. Item amounts are in token base units. */
export interface PayoutBatchInput extends CommonInput {
  items: { recipient: string; amount: UintInput }[];
}

/** Builds the single-payout `typed_data` exactly as returned to the merchant (api.md 2.4). */
export function buildPayoutTypedData(input: PayoutOrderInput): PayoutTypedData {
  return {
    types: { EIP712Domain: [...EIP712_DOMAIN], PayoutOrder: [...PAYOUT_ORDER] },
    primaryType: 'PayoutOrder',
    domain: {
      name: 'PayoutRouter',
      version: '1',
      chainId: chainIdNumber(input.chainId),
      verifyingContract: getAddressRemembered(input.router),
    },
    message: {
      token: getAddressRemembered(input.token),
      merchant: getAddressRemembered(input.merchant),
      recipient: getAddress(input.recipient),
      amount: uint(input.amount, 'amount', true),
      nonce: uint(input.nonce, 'nonce'),
      deadline: uint(input.deadline, 'deadline'),
    },
  };
}

/** Builds the batch `typed_data` exactly as returned to the merchant (api.md 2.4). */
export function buildBatchTypedData(input: PayoutBatchInput): BatchTypedData {
  if (input.items.length === 0) throw new RangeError('items: a batch needs at least one item');
  return {
    types: { EIP712Domain: [...EIP712_DOMAIN], PayoutBatch: [...PAYOUT_BATCH], PayoutItem: [...PAYOUT_ITEM] },
    primaryType: 'PayoutBatch',
    domain: {
      name: 'BatchPayoutRouter',
      version: '1',
      chainId: chainIdNumber(input.chainId),
      verifyingContract: getAddress(input.router),
    },
    message: {
      token: getAddress(input.token),
      merchant: getAddress(input.merchant),
      items: input.items.map((item, i) => ({
        recipient: getAddress(item.recipient),
        amount: uint(item.amount, `items[${i}].amount`, true),
      })),
      nonce: uint(input.nonce, 'nonce'),
      deadline: uint(input.deadline, 'deadline'),
    },
  };
}

/**
 * The types without `EIP712Domain`, as ethers' `signTypedData`/`verifyTypedData` want them
 * (ethers derives the domain type itself and refuses an explicit one).
 */
export function typesForEthers(typedData: AnyPayoutTypedData): Record<string, TypedDataField[]> {
  const { EIP712Domain: _domain, ...rest } = typedData.types;
  return rest;
}

/**
 * Encoders by their types and domain separators by their domain, built once: building them (parsing the
 * types, hashing the domain) was most of a digest, and every authorization takes one. The payout types
 * are fixed and the domains few (one per router); a full cache is cleared, never grown without bound.
 */
const encoders = new Map<string, TypedDataEncoder>();
const separators = new Map<string, string>();
const MAX_CACHED = 256;

function cached<T>(cache: Map<string, T>, key: string, make: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}

/** The 32-byte EIP-712 digest the wallet signs; equals the router's `hashOrder` / `hashBatch`. */
export function typedDataDigest(typedData: AnyPayoutTypedData): string {
  const types = typesForEthers(typedData);
  const typesKey = JSON.stringify(types);
  const { name, version, chainId, verifyingContract } = typedData.domain;
  const separator = cached(separators, `${name}|${version}|${chainId}|${verifyingContract}`, () =>
    TypedDataEncoder.hashDomain(typedData.domain),
  );
  const struct =
    typesKey === ORDER_TYPES_KEY
      ? orderStructHash(typedData.message as PayoutTypedData['message'])
      : cached(encoders, typesKey, () => TypedDataEncoder.from(types)).hash(typedData.message);
  return keccakHex(`0x1901${separator.slice(2)}${struct.slice(2)}`);
}

const ORDER_TYPES_KEY = JSON.stringify({ PayoutOrder: PAYOUT_ORDER });
const ORDER_TYPEHASH = TypedDataEncoder.from({ PayoutOrder: PAYOUT_ORDER }).encodeType('PayoutOrder');
const ORDER_TYPEHASH_HEX = keccak256(new TextEncoder().encode(ORDER_TYPEHASH)).slice(2);

/**
 * hashStruct of a single order, written out: six static words after the type hash (addresses and
 * uint256 alike one word each). The message is a built one (checksummed addresses, decimal strings);
 * test/payout/order-calldata.test.ts holds this equal to ethers' encoder.
 */
function orderStructHash(m: PayoutTypedData['message']): string {
  const words = [m.token, m.merchant, m.recipient].map((a) => a.slice(2).toLowerCase().padStart(64, '0'));
  for (const n of [m.amount, m.nonce, m.deadline]) words.push(BigInt(n).toString(16).padStart(64, '0'));
  return keccakHex(`0x${ORDER_TYPEHASH_HEX}${words.join('')}`);
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/**
 * Normalises a 65-byte signature for the routers (D7): `v` 0/1 becomes 27/28, and a high-`s` signature is
 * replaced by its low-`s` twin (same signer) because the routers reject malleable `s`. Returns lowercase
 * `0x` hex. Throws on anything that is not a 65-byte signature with `v` in {0, 1, 27, 28}.
 */
export function normalizeSignatureV(signature: string): string {
  const hex = signature.startsWith('0x') || signature.startsWith('0X') ? signature.slice(2) : signature;
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) throw new TypeError('signature: expected 65 bytes of hex');
  const r = hex.slice(0, 64);
  let s = BigInt(`0x${hex.slice(64, 128)}`);
  let v = Number.parseInt(hex.slice(128, 130), 16);
  if (v === 0 || v === 1) v += 27;
  if (v !== 27 && v !== 28) throw new RangeError(`signature: v must be 0, 1, 27 or 28, got ${v}`);
  if (s === 0n || s >= SECP256K1_N) throw new RangeError('signature: s out of range');
  if (s > SECP256K1_N / 2n) {
    s = SECP256K1_N - s;
    v = v === 27 ? 28 : 27;
  }
  return `0x${r.toLowerCase()}${s.toString(16).padStart(64, '0')}${v.toString(16)}`;
}

/**
 * The checksummed address that signed `typedData` (after {@link normalizeSignatureV}, so whatever this
 * accepts the router accepts too). Throws on a malformed signature.
 */
export function recoverTypedDataSigner(typedData: AnyPayoutTypedData, signature: string): string {
  return verifyTypedData(
    typedData.domain,
    typesForEthers(typedData),
    typedData.message,
    normalizeSignatureV(signature),
  );
}

/** The key BatchPayoutRouter indexes `ItemPaid`/`ItemFailed` by: keccak256(abi.encode(merchant, nonce)). */
export function batchKey(merchant: string, nonce: UintInput): string {
  return keccak256(
    AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [getAddress(merchant), uint(nonce, 'nonce')]),
  );
}
