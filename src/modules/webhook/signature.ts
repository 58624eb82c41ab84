import { hmacSha256Hex } from '../../lib/crypto.ts';

/** The signing rule of section 6.3, shared by the sender and the service's own tests. */

/** `<timestamp>\n<raw body>`: the exact bytes the signature covers. */
export const webhookCanonical = (timestamp: string, body: string): string => `${timestamp}\n${body}`;

/** Lowercase hex HMAC-SHA256 of the canonical string with the API key secret. */
export const signWebhook = (secret: string, timestamp: string, body: string): string =>
  hmacSha256Hex(secret, webhookCanonical(timestamp, body));
