/**
 * Multicall3 `aggregate3` calldata and results, laid out by hand. They are read on every balance read
 * and allowance check; ethers' general ABI coder spent several times the round trip's CPU on them
 * (Result objects, a hexlify per field). The layout is the ABI's for
 * `aggregate3((address,bool,bytes)[])` returning `(bool,bytes)[]`; test/evm/multicall-codec.test.ts
 * holds both equal to ethers' on random input and refusing what ethers refuses.
 */

/** `aggregate3((address target, bool allowFailure, bytes callData)[])`. */
const AGGREGATE3_SELECTOR = '82ad56cb';
const WORD = 64;

const word = (n: number) => n.toString(16).padStart(WORD, '0');
const ALLOW_FAILURE = word(1);

/** A call's data as hex without 0x, padded to whole words. */
function padded(hex: string): string {
  const rest = hex.length % WORD;
  return rest === 0 ? hex : hex + '0'.repeat(WORD - rest);
}

/**
 * Calldata of `aggregate3` with `allowFailure` set on every call. Targets must be 0x addresses and
 * call data 0x hex of whole bytes (what read-calls.ts builds).
 */
export function encodeAggregate3Calls(calls: readonly { target: string; callData: string }[]): string {
  const tuples: string[] = [];
  const offsets: string[] = [];
  // Offsets count from the start of the offsets block, which has one word per call.
  let offset = calls.length * 32;
  for (const { target, callData } of calls) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(target)) throw new Error(`aggregate3: bad target ${target}`);
    if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(callData)) throw new Error('aggregate3: bad call data');
    const data = callData.slice(2).toLowerCase();
    const tuple =
      target.slice(2).toLowerCase().padStart(WORD, '0') +
      ALLOW_FAILURE +
      word(3 * 32) +
      word(data.length / 2) +
      padded(data);
    offsets.push(word(offset));
    tuples.push(tuple);
    offset += tuple.length / 2;
  }
  return `0x${AGGREGATE3_SELECTOR}${word(32)}${word(calls.length)}${offsets.join('')}${tuples.join('')}`;
}

/** Reads the ABI's words of a hex string (without 0x), refusing anything out of bounds. */
class Words {
  constructor(private readonly hex: string) {}

  /** Bytes in the data. */
  get size(): number {
    return this.hex.length / 2;
  }

  /** The word at byte `at` as a small number (offsets and lengths); too large is malformed. */
  uint(at: number): number {
    const text = this.word(at);
    if (!/^0{48}/.test(text)) throw new Error('aggregate3 result: offset or length out of range');
    return Number.parseInt(text.slice(48), 16);
  }

  word(at: number): string {
    if (at < 0 || at + 32 > this.size) throw new Error('aggregate3 result: data too short');
    return this.hex.slice(at * 2, at * 2 + WORD);
  }

  /** `length` bytes at `at`; their padding to whole words must be there too (as ethers requires). */
  bytes(at: number, length: number): string {
    if (at + Math.ceil(length / 32) * 32 > this.size) throw new Error('aggregate3 result: data too short');
    return this.hex.slice(at * 2, (at + length) * 2);
  }
}

/** `aggregate3`'s answer, `(bool success, bytes returnData)[]`, with returnData as lowercase 0x hex. */
export function decodeAggregate3Result(data: string): { success: boolean; returnData: string }[] {
  if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(data)) throw new Error('aggregate3 result: not hex');
  const words = new Words(data.slice(2).toLowerCase());
  const array = words.uint(0);
  const count = words.uint(array);
  const base = array + 32;
  // Each entry takes at least its offset word and two words of its own: a huge count is malformed.
  if (count * 96 > words.size) throw new Error('aggregate3 result: data too short');
  const results = new Array<{ success: boolean; returnData: string }>(count);
  for (let i = 0; i < count; i++) {
    const tuple = base + words.uint(base + i * 32);
    const flag = words.word(tuple);
    const at = tuple + words.uint(tuple + 32);
    const length = words.uint(at);
    results[i] = { success: /[^0]/.test(flag), returnData: `0x${words.bytes(at + 32, length)}` };
  }
  return results;
}
