import { createHash } from 'node:crypto';

/** Hex helpers in Tron's house style: lowercase, no `0x` prefix. */

const HEX = /^(0x)?([0-9a-fA-F]{2})*$/;

/** Whether `value` is an even-length hex string, with or without `0x`. */
export const isHex = (value: unknown): value is string => typeof value === 'string' && HEX.test(value);

/** Strips an optional `0x` and lowercases; throws on anything that is not even-length hex. */
export function normalizeHex(value: string): string {
  if (!isHex(value)) throw new TypeError('not an even-length hex string');
  return value.replace(/^0x/, '').toLowerCase();
}

export const hexToBytes = (value: string): Uint8Array =>
  Uint8Array.from(Buffer.from(normalizeHex(value), 'hex'));

export const bytesToHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** SHA-256 of some bytes as Tron hex; a transaction id is this over `raw_data`. */
export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
