import { getAddress, isAddress } from 'ethers';
import { unavailable, validation } from '../../errors.ts';

/** Small helpers shared by the EVM adapter: JSON-RPC quantities, addresses, bounded concurrency. */

export type Hex = `0x${string}`;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** JSON-RPC quantity ("0x1a") to bigint; anything else is a malformed node answer (a degraded node). */
export function quantity(value: unknown, what: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) {
    throw unavailable(
      `malformed node answer: ${what} is ${JSON.stringify(value)?.slice(0, 80)}, not a hex quantity`,
    );
  }
  return BigInt(value);
}

/** Same, for values that always fit a JS number (block numbers, nonces, indexes, timestamps). */
export function smallQuantity(value: unknown, what: string): number {
  const n = quantity(value, what);
  if (n > BigInt(Number.MAX_SAFE_INTEGER))
    throw unavailable(`malformed node answer: ${what} ${n} is out of range`);
  return Number(n);
}

/**
 * Checksummed forms of addresses seen lately, keyed by the text as it came. The same few addresses
 * (a network's contracts, a merchant's wallets) come back on every read and every log, and
 * checksumming costs two keccak hashes (~0.1 ms): a backfill of thousands of logs would otherwise spend
 * more time here than in eth_getLogs itself. Bounded: cleared when full (none is worth keeping long).
 * One memo per validation rule, so a text one rule accepted is never taken as valid by the other.
 */
class ChecksumMemo {
  private readonly seen = new Map<string, string>();
  constructor(private readonly max: number) {}
  get(value: unknown): string | undefined {
    return typeof value === 'string' ? this.seen.get(value) : undefined;
  }
  put(value: string, checksummed: string): string {
    if (this.seen.size >= this.max) this.seen.clear();
    this.seen.set(value, checksummed);
    return checksummed;
  }
}
const nodeChecksums = new ChecksumMemo(4_096);
const inputChecksums = new ChecksumMemo(10_000);
const knownChecksums = new ChecksumMemo(4_096);

/**
 * Ethers' `getAddress`, remembered: for the addresses that recur in what the service builds (routers,
 * tokens, payout wallets), each of which it would otherwise hash again every time. Throws like
 * `getAddress` on a malformed address (never remembered).
 */
export function getAddressRemembered(address: string): string {
  return knownChecksums.get(address) ?? knownChecksums.put(address, getAddress(address));
}

/** Checksummed address from a node answer; a malformed one means a degraded node. */
export function nodeAddress(value: unknown, what: string): string {
  const known = nodeChecksums.get(value);
  if (known !== undefined) return known;
  if (typeof value !== 'string' || !isAddress(value)) {
    throw unavailable(
      `malformed node answer: ${what} is ${JSON.stringify(value)?.slice(0, 80)}, not an address`,
    );
  }
  return nodeChecksums.put(value, getAddress(value));
}

/** bigint/number to a minimal JSON-RPC quantity. */
export const toHex = (value: bigint | number): Hex => `0x${BigInt(value).toString(16)}`;

/** Checksummed address, or a `validation` error naming the field. */
export function address(value: string, field: string): string {
  const known = inputChecksums.get(value);
  if (known !== undefined) return known;
  if (typeof value !== 'string' || !isAddress(value) || !value.startsWith('0x')) {
    throw validation(`${field} is not a valid 0x address`);
  }
  // Both checks hash the address (keccak) when it has mixed case or needs a checksum.
  return inputChecksums.put(value, getAddress(value));
}

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Splits `items` into consecutive slices of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
