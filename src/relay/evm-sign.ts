import { signRecoverable } from 'tiny-secp256k1';
import { keccakBytes } from '../chains/evm/keccak.ts';

/**
 * Signing a relay transaction without ethers' `Wallet.signTransaction`, byte for byte what it signs
 * (test/payout/evm-sign.test.ts compares them): a burst of payouts is hundreds of signatures, and most
 * of each one's CPU went to ethers' generic path (a Transaction object, address checks, hex round
 * trips) and to the curve arithmetic in JavaScript. Here the transaction is RLP-encoded from its few
 * fields straight into bytes, and signed by libsecp256k1 compiled to WebAssembly (tiny-secp256k1):
 * the same deterministic nonce (RFC 6979, HMAC-SHA256, no extra data) and low `s` as ethers' noble,
 * so the same signature, in about a fifth of the CPU.
 */

/** r, s and the recovery id of `digest` signed with `privateKey` (RFC 6979, low s). */
function sign(
  digest: Uint8Array,
  privateKey: Uint8Array,
): { r: Uint8Array; s: Uint8Array; recovery: number } {
  const { signature, recoveryId } = signRecoverable(digest, privateKey);
  return {
    r: unpadded(signature.subarray(0, 32)),
    s: unpadded(signature.subarray(32, 64)),
    recovery: recoveryId,
  };
}

/** A big-endian integer's bytes without leading zeros, as RLP wants it. */
function unpadded(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return bytes.subarray(i);
}

/** A call to sign: EIP-1559 (type 2) when `priorityFee` is given, else legacy with EIP-155 replay protection. */
export interface EvmTx {
  chainId: number;
  nonce: number;
  to: string;
  data: string;
  value: bigint;
  gasLimit: bigint;
  /** EIP-1559 max fee per gas, or the legacy gas price. */
  maxFee: bigint;
  priorityFee?: bigint;
}

/** The signed transaction's bytes, `0x` hex, as `wallet.signTransaction` would give them. */
export function signEvmTx(privateKey: Uint8Array, tx: EvmTx): string {
  const to = hexBytes(tx.to);
  const data = hexBytes(tx.data);
  if (tx.priorityFee !== undefined) {
    const fields = [
      int(BigInt(tx.chainId)),
      int(BigInt(tx.nonce)),
      int(tx.priorityFee),
      int(tx.maxFee),
      int(tx.gasLimit),
      to,
      int(tx.value),
      data,
      [],
    ];
    const sig = sign(keccakBytes(typed(2, rlp(fields))), privateKey);
    return hex(typed(2, rlp([...fields, int(BigInt(sig.recovery)), sig.r, sig.s])));
  }
  const base = [int(BigInt(tx.nonce)), int(tx.maxFee), int(tx.gasLimit), to, int(tx.value), data];
  const chainId = BigInt(tx.chainId);
  const sig = sign(keccakBytes(rlp([...base, int(chainId), int(0n), int(0n)])), privateKey);
  return hex(rlp([...base, int(chainId * 2n + 35n + BigInt(sig.recovery)), sig.r, sig.s]));
}

/** The private key's bytes (`0x` hex), once per wallet. */
export const keyBytes = (privateKey: string): Uint8Array => hexBytes(privateKey);

type Item = Uint8Array | Item[];

/** An unsigned integer as RLP wants it: big-endian, no leading zeros (0 is empty). */
function int(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  let h = v.toString(16);
  if (h.length % 2) h = `0${h}`;
  return Buffer.from(h, 'hex');
}

function hexBytes(h: string): Uint8Array {
  const body = h.startsWith('0x') || h.startsWith('0X') ? h.slice(2) : h;
  if (body.length % 2 || !/^[0-9a-fA-F]*$/.test(body)) throw new Error(`not hex bytes: ${h.slice(0, 20)}`);
  return Buffer.from(body, 'hex');
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;

function typed(type: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(payload.length + 1);
  out[0] = type;
  out.set(payload, 1);
  return out;
}

/** RLP of byte strings and lists (the Ethereum Yellow Paper, appendix B). */
function rlp(item: Item): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) return item;
    return Buffer.concat([lengthPrefix(item.length, 0x80), item]);
  }
  const body = Buffer.concat(item.map(rlp));
  return Buffer.concat([lengthPrefix(body.length, 0xc0), body]);
}

function lengthPrefix(length: number, offset: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const bytes = int(BigInt(length));
  return Uint8Array.of(offset + 55 + bytes.length, ...bytes);
}
