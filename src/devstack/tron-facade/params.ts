import { toTronHex } from '../../chains/tron/address.ts';
import { bytesToHex, isHex, normalizeHex } from '../../chains/tron/hex.ts';

/**
 * Request parameters and the node's error shapes. java-tron answers malformed requests with HTTP 200
 * and `{"Error": "..."}`, contract problems with `{"result":{"code","message"}}` and broadcast
 * refusals with `{"code","txid","message"}`; messages are hex-encoded UTF-8 as the node sends them.
 */

export type Params = Record<string, unknown>;

/** A request the node would refuse as malformed; answered as `{"Error": message}`. */
export class BadRequest extends Error {
  override readonly name = 'BadRequest';
}

export const utf8Hex = (text: string): string => bytesToHex(new TextEncoder().encode(text));

export const errorBody = (message: string) => ({ Error: message });

export const resultError = (code: string, message: string) => ({
  result: { code, message: utf8Hex(message) },
});

export function stringParam(params: Params, key: string): string | undefined {
  const value = params[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new BadRequest(`${key} must be a string`);
  return value;
}

export function requiredString(params: Params, key: string): string {
  const value = stringParam(params, key);
  if (value === undefined) throw new BadRequest(`${key} is required`);
  return value;
}

/** A non-negative integer; numeric strings are accepted as the node's JSON parser does. */
export function intParam(params: Params, key: string, fallback: number): number {
  const value = params[key];
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new BadRequest(`${key} must be a non-negative integer`);
  }
  return n;
}

/** An address in any spelling, returned as `41…` hex. */
export function addressParam(params: Params, key: string): string {
  const value = requiredString(params, key);
  try {
    return toTronHex(value);
  } catch {
    throw new BadRequest(`${key} is not a valid address: ${value}`);
  }
}

export function hexParam(params: Params, key: string): string | undefined {
  const value = stringParam(params, key);
  if (value === undefined) return undefined;
  if (!isHex(value)) throw new BadRequest(`${key} must be hex`);
  return normalizeHex(value);
}

/** `visible` as the node reads it: true or "true". */
export const isVisible = (params: Params): boolean => params.visible === true || params.visible === 'true';
