import { z } from 'zod';

/** camelCase → snake_case, the spelling of the REST contract. */
export const toSnake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
/** snake_case → camelCase. */
export const toCamel = (key: string): string =>
  key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

interface Issue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined;
}

/** One readable line per issue, fields named in API spelling: `items[3].amount: must be positive`. */
export function formatIssues(issues: ReadonlyArray<Issue>): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((p) => (typeof p === 'object' ? p.key : p))
        .reduce<string>(
          (acc, key) =>
            typeof key === 'number' ? `${acc}[${key}]` : `${acc ? `${acc}.` : ''}${toSnake(String(key))}`,
          '',
        );
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** Merchant references (D2): 1 to 128 printable ASCII characters. */
export const reference = z
  .string()
  .regex(/^[\x21-\x7e]{1,128}$/, 'must be 1 to 128 printable ASCII characters without spaces');

/** `callback_url` / `return_url` (D2): absolute http(s) URL of at most 2048 characters. */
export const httpUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL');

/** A positive decimal amount string (D3); precision is checked against the token later. */
export const positiveAmount = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?$/, 'must be a decimal string such as "125.50"')
  .refine((v) => /[1-9]/.test(v), 'must be greater than zero');

export const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be 0x followed by 40 hex characters');
export const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex characters');

/**
 * The path (`a.b.0`) of the first string or key holding a NUL character, which PostgreSQL text cannot
 * store; undefined when there is none. Inputs are checked at the edge so that such a value is a 400,
 * never a database error.
 */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'input' : undefined;
  if (!value || typeof value !== 'object') return undefined;
  for (const [key, child] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return at;
    const found = findNul(child, at);
    if (found) return found;
  }
  return undefined;
}

export const NUL_MESSAGE = 'must not contain NUL characters (\\u0000)';
