import { randomBytes } from 'node:crypto';

/** Kinds of service ids and their prefixes (D2). */
export const ID_PREFIX = {
  merchant: 'mer',
  apiKey: 'key',
  operatorToken: 'opt',
  operatorAudit: 'aud',
  session: 'cs',
  payout: 'po',
  batch: 'pb',
  deposit: 'dep',
  webhook: 'wh',
  walletAddress: 'wa',
  sweep: 'sw',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

/** A new opaque, URL-safe id: prefix + 128 random bits in base64url (D2 asks for at least 96). */
export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${randomBytes(16).toString('base64url')}`;
}

/** A random URL-safe secret of `bytes` bytes with a readable prefix. */
export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
