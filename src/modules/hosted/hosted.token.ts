import { createHash, randomBytes } from 'node:crypto';

/**
 * Hosted-link tokens (D12): 32 random bytes (256 bits, above the 128-bit floor), base64url so they sit
 * in a URL path unescaped. The token is handed out once; only its SHA-256 (hex) is stored, so a
 * database read never yields a usable link.
 */

/** Bytes of randomness in a token. */
export const HOSTED_TOKEN_BYTES = 32;

/** The shape of a token as issued: 43 base64url characters. */
export const HOSTED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** SHA-256 of a token, lowercase hex: what `sessions.hosted_token_hash` holds. */
export function hashHostedToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh token and the hash to store in its place. */
export function newHostedToken(): { token: string; hash: string } {
  const token = randomBytes(HOSTED_TOKEN_BYTES).toString('base64url');
  return { token, hash: hashHostedToken(token) };
}

/** The page's address for a token: `PUBLIC_BASE_URL` + `/p/{token}` (no doubled slash). */
export function hostedUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/p/${token}`;
}
