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

/**
 * Longest amount string: the width of the amount columns (`varchar(100)`), so a longer one is a 400
 * naming the field rather than a database error.
 */
export const MAX_AMOUNT_LENGTH = 100;
/** 2^256 − 1 has 78 digits: a whole part longer than that cannot be a token amount on any chain. */
export const MAX_AMOUNT_WHOLE_DIGITS = 78;

/** A positive decimal amount string (D3); precision is checked against the token later. */
export const positiveAmount = z
  .string()
  .max(MAX_AMOUNT_LENGTH, { message: `must be at most ${MAX_AMOUNT_LENGTH} characters`, abort: true })
  .regex(/^[0-9]+(\.[0-9]+)?$/, { message: 'must be a decimal string such as "125.50"', abort: true })
  .refine(
    (v) => v.replace(/^0+/, '').split('.')[0]!.length <= MAX_AMOUNT_WHOLE_DIGITS,
    `must have at most ${MAX_AMOUNT_WHOLE_DIGITS} digits before the decimal point (a uint256 amount)`,
  )
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

/**
 * Deepest nesting a request may carry (JSON bodies, GraphQL variables and documents). Real inputs
 * nest a few levels; the limit is checked before anything walks the value recursively, so 10 000
 * levels are a 400, never a stack overflow.
 */
export const MAX_NESTING_DEPTH = 32;

export const nestingMessage = (what: string) => `${what}: nested deeper than ${MAX_NESTING_DEPTH} levels`;

/**
 * Whether JSON text opens more than `limit` arrays and objects inside one another. A linear scan of
 * the text (strings skipped), so it runs before JSON.parse and any recursive walk.
 */
export function jsonTooDeep(text: string, limit = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * The same for a GraphQL document: selection sets, argument lists, list and object values. Strings,
 * block strings and comments are skipped. graphql-js parses recursively, so this runs before it.
 */
export function graphqlTooDeep(source: string, limit = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '#') {
      while (i < source.length && source[i] !== '\n' && source[i] !== '\r') i++;
    } else if (c === '"' && source.startsWith('"""', i)) {
      const end = source.indexOf('"""', i + 3);
      i = end < 0 ? source.length : end + 2;
      // Escaped triple quotes (\""") inside a block string do not end it.
      while (end >= 0 && source[i - 3] === '\\' && i < source.length) {
        const next = source.indexOf('"""', i + 1);
        i = next < 0 ? source.length : next + 2;
      }
    } else if (c === '"') {
      for (i++; i < source.length && source[i] !== '"' && source[i] !== '\n'; i++)
        if (source[i] === '\\') i++;
    } else if (c === '{' || c === '(' || c === '[') {
      if (++depth > limit) return true;
    } else if (c === '}' || c === ')' || c === ']') depth--;
  }
  return false;
}

/** Whether an already-parsed value (e.g. GraphQL variables) nests deeper than `limit`; iterative. */
export function valueTooDeep(value: unknown, limit = MAX_NESTING_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(node))
      if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
