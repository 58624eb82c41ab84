/**
 * A signed request to the gateway from a merchant backend (Node 18+, no dependencies): copy this file.
 *
 *   const res = await signedFetch('http://localhost:8080', 'key_…', 'sk_…', 'POST', '/v1/cashier/init', {
 *     external_order_id: 'order-1001',
 *   });
 *
 * Canonical string: METHOD \n PATH?QUERY \n TIMESTAMP \n NONCE \n hex SHA-256 of the raw body; the
 * signature is its hex HMAC-SHA256 with the API secret. Every call gets a fresh timestamp and nonce,
 * so a retry is a new request. Keep the secret on your backend, never in a browser.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';

export async function signedFetch(
  baseUrl: string,
  keyId: string,
  secret: string,
  method: string,
  target: string,
  body?: unknown,
): Promise<Response> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomUUID();
  const bodyHash = createHash('sha256').update(raw).digest('hex');
  const canonical = [method.toUpperCase(), target, timestamp, nonce, bodyHash].join('\n');
  const signature = createHmac('sha256', secret).update(canonical).digest('hex');
  return fetch(baseUrl + target, {
    method,
    headers: {
      'content-type': 'application/json',
      'X-Api-Key': keyId,
      'X-Timestamp': timestamp,
      'X-Nonce': nonce,
      'X-Signature': signature,
    },
    body: method.toUpperCase() === 'GET' ? undefined : raw,
  });
}
