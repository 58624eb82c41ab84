import { getAddress, recoverAddress, Signature } from 'ethers';
import { validation } from '../../errors.ts';
import { isHex, normalizeHex } from './hex.ts';

/**
 * Tron signs a transaction by signing its 32-byte txID directly with secp256k1 (no message prefix)
 * and appending the recovery id: 65 bytes r‖s‖v, v being 0/1 or 27/28 depending on the wallet.
 */

const SIGNATURE_BYTES = 65;
const TX_ID = /^(0x)?[0-9a-fA-F]{64}$/;

/** Normalizes a signature to 130 lowercase hex characters; anything but 65 bytes is `validation`. */
export function normalizeTxSignature(signature: string): string {
  if (!isHex(signature) || normalizeHex(signature).length !== SIGNATURE_BYTES * 2) {
    throw validation('signature must be 65 bytes of hex');
  }
  return normalizeHex(signature);
}

/**
 * The `0x` address (checksummed) whose key produced `signature` over `txId`. Both may carry `0x`.
 * An unrecoverable or malformed signature is a `validation` error.
 */
export function recoverTxSigner(txId: string, signature: string): string {
  if (!TX_ID.test(txId)) throw validation('tx_id must be 32 bytes of hex');
  const sig = normalizeTxSignature(signature);
  try {
    return getAddress(recoverAddress(`0x${normalizeHex(txId)}`, Signature.from(`0x${sig}`)));
  } catch (error) {
    throw validation(`signature does not recover: ${(error as Error).message}`);
  }
}

/**
 * Whether `signature` over `txId` recovers to `expected` (`0x` form). Malformed input throws
 * `validation`; a well-formed signature by another key returns false.
 */
export function verifyTxSignature(txId: string, signature: string, expectedEvmAddress: string): boolean {
  return recoverTxSigner(txId, signature) === getAddress(expectedEvmAddress);
}
