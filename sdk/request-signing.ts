/**
 * Request signing of the crypto payment gateway: the one implementation, used by the service's
 * verifier, its CLI and tests, and by merchants' clients (sdk/client.ts). node:crypto only.
 *
 *   canonical = METHOD \n PATH?QUERY \n TIMESTAMP \n NONCE \n lowercase hex SHA-256(raw body)
 *   X-Signature = lowercase hex HMAC-SHA256(API secret, canonical)
 *
 * The published vectors in request-signing-test-vectors.json pin it down for other languages.
 */
import { createHash, createHmac, type KeyObject, randomUUID } from 'node:crypto';

/** Allowed clock skew between `X-Timestamp` and server time. */
export const MAX_SKEW_SECONDS = 300;
/** How long a consumed nonce is remembered. Must cover twice the skew: a request is valid ±300 s. */
export const NONCE_WINDOW_SECONDS = 900;
export const NONCE_PATTERN = /^[A-Za-z0-9._~-]{8,128}$/;
export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface SignatureInput {
  method: string;
  /** Path plus `?query` exactly as sent. */
  target: string;
  timestamp: string;
  nonce: string;
  body: string | Uint8Array;
}

/** METHOD, target, timestamp, nonce and body SHA-256, joined by `\n` with no trailing newline. */
export function canonicalRequest(input: SignatureInput): string {
  const bodyHash =
    input.body.length === 0 ? EMPTY_BODY_SHA256 : createHash('sha256').update(input.body).digest('hex');
  return [input.method.toUpperCase(), input.target, input.timestamp, input.nonce, bodyHash].join('\n');
}

/**
 * Lowercase hex HMAC-SHA256 of the canonical request with the API secret: the secret as given, or a
 * KeyObject made of its UTF-8 bytes once (`createSecretKey(secret, 'utf8')`) by a verifier that signs
 * with one key many times.
 */
export function signRequest(secret: string | KeyObject, input: SignatureInput): string {
  return createHmac('sha256', secret).update(canonicalRequest(input)).digest('hex');
}

/** The four headers of a signed request, ready to send; every call a fresh timestamp and nonce. */
export function signedHeaders(
  keyId: string,
  secret: string,
  request: { method: string; target: string; body?: string | Uint8Array },
  now = Date.now(),
  nonce: string = randomUUID(),
): Record<string, string> {
  const timestamp = String(Math.floor(now / 1000));
  const body = request.body ?? '';
  return {
    'X-Api-Key': keyId,
    'X-Timestamp': timestamp,
    'X-Nonce': nonce,
    'X-Signature': signRequest(secret, {
      method: request.method,
      target: request.target,
      timestamp,
      nonce,
      body,
    }),
  };
}
