import { randomBytes, randomFillSync } from 'node:crypto';

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

const ID_BYTES = 16;
/**
 * Random bytes for ids, drawn from the CSPRNG 256 ids at a time: one `randomBytes` call per id costs
 * ~10 µs (a trip into C++ and a buffer each), which a chunk of the deposit scanner pays hundreds of
 * times (deposit, event and delivery ids). Every byte is used once; secrets ({@link newSecret}) never
 * come from here.
 */
const pool = Buffer.alloc(ID_BYTES * 256);
let used = pool.length;

/** A new opaque, URL-safe id: prefix + 128 random bits in base64url (D2 asks for at least 96). */
export function newId(kind: IdKind): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const bits = pool.toString('base64url', used, used + ID_BYTES);
  used += ID_BYTES;
  return `${ID_PREFIX[kind]}_${bits}`;
}

/** A random URL-safe secret of `bytes` bytes with a readable prefix. */
export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}
