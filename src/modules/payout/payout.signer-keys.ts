import { secp256k1 } from '@noble/curves/secp256k1';
import { computeAddress, SigningKey } from 'ethers';
import { checksumAddress } from '../../chains/payout-typed-data.ts';

/**
 * Who signed a payout order, answered fast for the payout wallets this process has already seen.
 * Recovering a signer from a signature multiplies an arbitrary curve point (several milliseconds of
 * CPU, the largest part of an authorization); checking a signature against a known public key
 * multiplies only the generator and that key, both with precomputed tables. So the first signature of a
 * payout wallet is recovered (its public key kept), and later ones are checked against the key:
 *
 *   R = (h·s⁻¹)·G + (r·s⁻¹)·Q, and the signature recovers to Q exactly when R.x = r and R.y's parity is v − 27
 *
 * which is what `ecrecover` (and the router) computes backwards. Anything else — an unknown wallet, a
 * signature that does not match the key — takes the slow path, so the answer is always the recovered
 * signer.
 */

/** Payout wallets whose keys are kept; past this the oldest is forgotten (a table is ~60 kB). */
const MAX_KEYS = 256;
/** Precomputation window: 4 keeps a key's table small while making its multiplications ~3× cheaper. */
const WINDOW = 4;

type Point = InstanceType<typeof secp256k1.ProjectivePoint>;
const keys = new Map<string, Point>();
const N = secp256k1.CURVE.n;

/**
 * The checksummed address that produced `signature` (65 bytes, `v` 27/28, low `s`: normalised) over
 * `digest`; `expected` is the wallet it should be, whose key (once known) makes the answer cheap.
 * Throws on a signature that recovers to nothing.
 */
export function signerOf(digest: string, signature: string, expected: string): string {
  const wallet = checksumAddress(expected);
  const key = keys.get(wallet);
  if (key && matches(key, digest, signature)) return wallet;
  const publicKey = SigningKey.recoverPublicKey(digest, signature);
  const signer = computeAddress(publicKey);
  if (signer === wallet && !key) remember(wallet, publicKey);
  return signer;
}

function matches(key: Point, digest: string, signature: string): boolean {
  const hex = signature.slice(2);
  const r = BigInt(`0x${hex.slice(0, 64)}`);
  const s = BigInt(`0x${hex.slice(64, 128)}`);
  const v = Number.parseInt(hex.slice(128, 130), 16);
  if (r <= 0n || r >= N || s <= 0n || s >= N || (v !== 27 && v !== 28)) return false;
  const h = BigInt(digest) % N;
  const w = invert(s);
  const u1 = (h * w) % N;
  const u2 = (r * w) % N;
  const G = secp256k1.ProjectivePoint.BASE;
  const sum = (u1 === 0n ? secp256k1.ProjectivePoint.ZERO : G.multiply(u1)).add(key.multiply(u2));
  if (sum.equals(secp256k1.ProjectivePoint.ZERO)) return false;
  const R = sum.toAffine();
  return R.x === r && Number(R.y & 1n) === v - 27;
}

function remember(wallet: string, publicKey: string): void {
  if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
  const point = secp256k1.ProjectivePoint.fromHex(publicKey.slice(2));
  point._setWindowSize(WINDOW);
  keys.set(wallet, point);
}

/** s⁻¹ mod N (extended Euclid; s is in (0, N), N prime). */
function invert(s: bigint): bigint {
  let [a, b, x, y] = [s, N, 1n, 0n];
  while (b !== 0n) {
    const q = a / b;
    [a, b, x, y] = [b, a - q * b, y, x - q * y];
  }
  return ((x % N) + N) % N;
}
