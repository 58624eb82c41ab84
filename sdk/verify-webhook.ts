/**
 * Webhook verification for receivers of the crypto payment gateway (section 6.3 of the API).
 * Dependency-free: node:crypto only. Copy this file into your project or import it.
 *
 *   const result = verifyWebhook(rawBody, req.headers, process.env.GATEWAY_API_SECRET!);
 *   if (!result.ok) return reply(401, result.reason);
 *   // result.idempotencyKey: deduplicate on it; result.payload: the parsed body.
 *
 * Failures are returned, not thrown (`{ ok: false, reason, message }`), so a receiver can answer 401
 * without try/catch; only programming errors (an empty secret) throw.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Default allowed distance between `X-Webhook-Timestamp` and the receiver's clock (section 8). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

export interface VerifiedWebhook {
  ok: true;
  /** `X-Webhook-Event`, e.g. `payment.completed`. */
  event: string;
  /** `X-Webhook-Id`: this delivery; stable across its retries, new on an operator resend. */
  id: string;
  /** `X-Idempotency-Key`: the logical event; identical across retries and resends. Deduplicate on it. */
  idempotencyKey: string;
  /** `X-Webhook-Key-Id`: the API key whose secret signed it. */
  keyId: string;
  /** `X-Webhook-Timestamp` in Unix seconds. */
  timestamp: number;
  /** The body parsed after the signature matched. */
  payload: Record<string, unknown>;
}

export type WebhookFailureReason =
  | 'missing_header'
  | 'malformed_header'
  | 'unknown_key'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'malformed_body';

export interface WebhookVerificationFailure {
  ok: false;
  reason: WebhookFailureReason;
  message: string;
}

export interface VerifyOptions {
  /** Allowed clock distance in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock in milliseconds (default Date.now()). */
  now?: number;
}

/**
 * Checks a webhook against the raw request body (the exact bytes received, before any JSON parsing):
 * all required headers present, timestamp within tolerance, and `X-Webhook-Signature` equal (in
 * constant time) to lowercase hex HMAC-SHA256(secret, `${timestamp}\n${rawBody}`).
 *
 * `secret` is the API key secret, or a function from `X-Webhook-Key-Id` to the secret (for key
 * rotation: return undefined for an unknown key id).
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | ((keyId: string) => string | undefined),
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: VerifyOptions = {},
): VerifiedWebhook | WebhookVerificationFailure {
  if (secret === '') throw new TypeError('verifyWebhook: secret must not be empty');
  const fail = (reason: WebhookFailureReason, message: string): WebhookVerificationFailure => ({
    ok: false,
    reason,
    message,
  });

  const values: Record<string, string> = {};
  for (const name of [
    'x-webhook-event',
    'x-webhook-id',
    'x-idempotency-key',
    'x-webhook-timestamp',
    'x-webhook-signature',
    'x-webhook-key-id',
  ]) {
    const value = header(headers, name);
    if (value === undefined || value === '') return fail('missing_header', `${name} header is missing`);
    if (value === null) return fail('malformed_header', `${name} header is repeated`);
    values[name] = value;
  }
  const timestamp = values['x-webhook-timestamp']!;
  const signature = values['x-webhook-signature']!.toLowerCase();
  const keyId = values['x-webhook-key-id']!;
  if (!/^\d{1,15}$/.test(timestamp))
    return fail('malformed_header', 'x-webhook-timestamp must be Unix seconds');
  if (!/^[0-9a-f]{64}$/.test(signature))
    return fail('malformed_header', 'x-webhook-signature must be 64 hex characters');
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) {
    return fail(
      'timestamp_out_of_tolerance',
      `x-webhook-timestamp is more than ${toleranceSeconds} s from this clock`,
    );
  }
  const key = typeof secret === 'function' ? secret(keyId) : secret;
  if (!key) return fail('unknown_key', `no secret for key ${keyId}`);

  const expected = createHmac('sha256', key).update(`${timestamp}\n`).update(rawBody).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    return fail('signature_mismatch', 'x-webhook-signature does not match the body');
  }

  let payload: unknown;
  try {
    payload = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    return fail('malformed_body', 'the body is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return fail('malformed_body', 'the body is not a JSON object');
  }
  return {
    ok: true,
    event: values['x-webhook-event']!,
    id: values['x-webhook-id']!,
    idempotencyKey: values['x-idempotency-key']!,
    keyId,
    timestamp: Number(timestamp),
    payload: payload as Record<string, unknown>,
  };
}

/** A header value case-insensitively; null when it was sent more than once. */
function header(headers: WebhookHeaders, name: string): string | null | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  let found: string | string[] | undefined;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue;
    if (found !== undefined) return null;
    found = record[key];
  }
  if (Array.isArray(found)) return found.length === 1 ? found[0] : found.length === 0 ? undefined : null;
  return found;
}
