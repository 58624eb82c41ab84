import { computeAddress } from 'ethers';
import { recover } from 'tiny-secp256k1';
import { getAddressRemembered } from '../../chains/evm/util.ts';

/**
 * Who signed a payout order: `ecrecover`, computed by libsecp256k1 (the library geth's `ecrecover`
 * precompile uses) compiled to WebAssembly (tiny-secp256k1; no native build). A recovery there costs a
 * fraction of the pure-JS one (noble, through ethers) and of the noble check against a cached key it
 * replaces; Node's own OpenSSL is no help: its secp256k1 is the generic prime-curve code (about as slow
 * as noble's cached check) and it has no Keccak digest to verify an EIP-712 signature with.
 *
 * What recovers is decided by `v` exactly as on chain: the key whose signature (r, s) with R's
 * y-parity `v − 27` is. A payout wallet's public key, once recovered, is kept (65 bytes) only to name
 * it without hashing the key again; the answer is always the recovered signer.
 */

/** Payout wallets whose public keys are kept; past this the oldest is forgotten. */
const MAX_KEYS = 4_096;

const keys = new Map<string, Uint8Array>();
const HALF_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n / 2n;

/**
 * The checksummed address that produced `signature` (65 bytes hex, `v` 27/28, low `s`: normalised)
 * over `digest` (32 bytes hex); `expected` is the wallet it should be. Throws on a signature that
 * recovers to nothing (r or s zero or not below the curve order, r not a point's x, v not 27/28)
 * or is not normalised (s above half the order).
 */
export function signerOf(digest: string, signature: string, expected: string): string {
  const hex = signature.startsWith('0x') ? signature.slice(2) : signature;
  if (!/^[0-9a-fA-F]{130}$/.test(hex)) throw new TypeError('expected 65 bytes of hex');
  const v = Number.parseInt(hex.slice(128, 130), 16);
  if (v !== 27 && v !== 28) throw new RangeError(`v must be 27 or 28, got ${v}`);
  // Normalised means low s (normalizeSignatureV); a high one here is a caller's mistake, as it was for ethers.
  if (BigInt(`0x${hex.slice(64, 128)}`) > HALF_N) throw new RangeError('s must be low (normalised)');
  const h = Buffer.from(digest.slice(2), 'hex');
  if (h.length !== 32) throw new TypeError('expected a 32-byte digest');
  const publicKey = recover(h, Buffer.from(hex.slice(0, 128), 'hex'), (v - 27) as 0 | 1, false);
  if (!publicKey) throw new Error('the signature recovers to no key');
  const wallet = getAddressRemembered(expected);
  const known = keys.get(wallet);
  if (known && Buffer.compare(known, publicKey) === 0) return wallet;
  const signer = computeAddress(`0x${Buffer.from(publicKey).toString('hex')}`);
  if (signer === wallet) remember(wallet, publicKey);
  return signer;
}

function remember(wallet: string, publicKey: Uint8Array): void {
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  keys.set(wallet, publicKey);
}
