import { verifyWebhook } from '../../sdk/verify-webhook.ts';
import type { App } from '../app.ts';
import { readBody } from '../http/body.ts';
import { sendJson } from '../http/respond.ts';
import type { PageHandler } from '../http/server.ts';
import { decryptSecret } from '../lib/crypto.ts';
import { ApiKey } from '../modules/auth/auth.entity.ts';

/** Where the demo merchant's webhooks go on the embedded stack. */
export const WEBHOOK_INBOX_PATH = '/dev/webhook-inbox';
const KEEP = 100;

interface Received {
  received_at: string;
  verified: boolean;
  reason?: string;
  event?: string;
  webhook_id?: string;
  idempotency_key?: string;
  body: unknown;
}

/**
 * A webhook receiver for the embedded development stack only: the demo merchant's default webhook URL
 * points here, so `npm start` exercises the whole outbox (signing, delivery, retries). It verifies each
 * delivery with the SDK's `verifyWebhook` and keeps the last 100 in memory; `GET` lists them, newest
 * first. Never mounted outside the embedded stack.
 */
export function webhookInbox(app: App): PageHandler {
  const received: Received[] = [];
  return async (req, res, url) => {
    if (url.pathname !== WEBHOOK_INBOX_PATH) return false;
    if (req.method === 'GET') {
      sendJson(res, 200, { deliveries: received });
      return true;
    }
    const raw = await readBody(req);
    const keyId = String(req.headers['x-webhook-key-id'] ?? '');
    const key = keyId ? await app.fork().findOne(ApiKey, { id: keyId }) : null;
    const secret =
      key && app.config.secretsKey ? decryptSecret(app.config.secretsKey, key.secretSealed) : undefined;
    const result = verifyWebhook(raw, req.headers, () => secret);
    let body: unknown = raw.toString('utf8');
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {}
    received.unshift({
      received_at: new Date().toISOString(),
      verified: result.ok,
      ...(result.ok
        ? { event: result.event, webhook_id: result.id, idempotency_key: result.idempotencyKey }
        : { reason: result.reason }),
      body,
    });
    received.length = Math.min(received.length, KEEP);
    res.writeHead(result.ok ? 204 : 401).end();
    return true;
  };
}
