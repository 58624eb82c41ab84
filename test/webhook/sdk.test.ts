import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/verify-webhook.ts';
import { enqueueWebhook } from '../../src/modules/webhook/outbox.ts';
import { signWebhook } from '../../src/modules/webhook/signature.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { merchantWithHook, type WebhookWorker, webhookWorker } from './support.ts';

interface Vector {
  name: string;
  secret: string;
  timestamp: string;
  body: string;
  signature: string;
}
const published = JSON.parse(
  readFileSync(new URL('../../sdk/webhook-test-vectors.json', import.meta.url), 'utf8'),
) as {
  vectors: Vector[];
  invalid: (Vector & { now: number; reason: string })[];
};

const headersFor = (v: { timestamp: string; signature: string }) => ({
  'x-webhook-event': 'payment.completed',
  'x-webhook-id': 'wh_vector',
  'x-idempotency-key': 'payment.completed:cs_vector',
  'x-webhook-timestamp': v.timestamp,
  'x-webhook-signature': v.signature,
  'x-webhook-key-id': 'key_vector',
});

describe('published test vectors', () => {
  it.each(published.vectors)('$name: signature is right and verifies', (v) => {
    // Independent of both the SDK and the service: recomputed here.
    expect(createHmac('sha256', v.secret).update(`${v.timestamp}\n${v.body}`, 'utf8').digest('hex')).toBe(
      v.signature,
    );
    expect(signWebhook(v.secret, v.timestamp, v.body)).toBe(v.signature);
    const now = Number(v.timestamp) * 1000;
    const result = verifyWebhook(v.body, headersFor(v), v.secret, { now });
    expect(result).toMatchObject({
      ok: true,
      id: 'wh_vector',
      idempotencyKey: 'payment.completed:cs_vector',
      keyId: 'key_vector',
    });
    // Bytes and fetch-style Headers work the same.
    expect(
      verifyWebhook(new TextEncoder().encode(v.body), new Headers(headersFor(v)), v.secret, { now }).ok,
    ).toBe(true);
  });

  it.each(published.invalid)('$name: refused ($reason)', (v) => {
    const result = verifyWebhook(v.body, headersFor(v), v.secret, { now: v.now * 1000 });
    expect(result).toMatchObject({ ok: false, reason: v.reason });
  });
});

describe('verifyWebhook', () => {
  const v = published.vectors[0]!;
  const now = Number(v.timestamp) * 1000;

  it('accepts a timestamp up to the tolerance either way, and a custom tolerance', () => {
    expect(verifyWebhook(v.body, headersFor(v), v.secret, { now: now + 300_000 }).ok).toBe(true);
    expect(verifyWebhook(v.body, headersFor(v), v.secret, { now: now - 300_000 }).ok).toBe(true);
    expect(verifyWebhook(v.body, headersFor(v), v.secret, { now: now - 301_000 })).toMatchObject({
      reason: 'timestamp_out_of_tolerance',
    });
    expect(
      verifyWebhook(v.body, headersFor(v), v.secret, { now: now + 60_000, toleranceSeconds: 30 }).ok,
    ).toBe(false);
  });

  it('needs every header once; names are case-insensitive', () => {
    for (const name of Object.keys(headersFor(v))) {
      const headers: Record<string, string | undefined> = { ...headersFor(v), [name]: undefined };
      expect(verifyWebhook(v.body, headers, v.secret, { now })).toMatchObject({
        ok: false,
        reason: 'missing_header',
      });
    }
    const upper = Object.fromEntries(Object.entries(headersFor(v)).map(([k, x]) => [k.toUpperCase(), x]));
    expect(verifyWebhook(v.body, upper, v.secret, { now }).ok).toBe(true);
    const repeated = { ...headersFor(v), 'x-webhook-signature': [v.signature, v.signature] };
    expect(verifyWebhook(v.body, repeated, v.secret, { now })).toMatchObject({ reason: 'malformed_header' });
    const short = { ...headersFor(v), 'x-webhook-signature': v.signature.slice(2) };
    expect(verifyWebhook(v.body, short, v.secret, { now })).toMatchObject({ reason: 'malformed_header' });
  });

  it('picks the secret by X-Webhook-Key-Id when given a lookup (key rotation)', () => {
    const secrets: Record<string, string> = { key_old: 'sk_old', key_vector: v.secret };
    expect(verifyWebhook(v.body, headersFor(v), (id) => secrets[id], { now }).ok).toBe(true);
    const other = { ...headersFor(v), 'x-webhook-key-id': 'key_gone' };
    expect(verifyWebhook(v.body, other, (id) => secrets[id], { now })).toMatchObject({
      reason: 'unknown_key',
    });
  });
});

describe('a receiver built on the SDK', () => {
  let t: TestApp;
  let w: WebhookWorker;
  beforeAll(async () => {
    t = await startTestApp();
    w = await webhookWorker(t);
  });
  afterAll(async () => {
    await w?.close();
    await t?.close();
  });

  it('verifies real deliveries and dedupes an operator resend on X-Idempotency-Key', async () => {
    let secret = '';
    const processed = new Set<string>();
    const outcomes: string[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const result = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
        if (!result.ok) {
          outcomes.push(result.reason);
          return void res.writeHead(401).end();
        }
        outcomes.push(processed.has(result.idempotencyKey) ? 'duplicate' : 'processed');
        processed.add(result.idempotencyKey);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const m = await merchantWithHook(t, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
      secret = 'not the secret';
      const id = (await enqueueWebhook(t.app.fork(), {
        merchantId: m.id,
        event: 'deposit.confirmed',
        subjectId: 'dep_sdk',
        body: { deposit_id: 'dep_sdk', player_id: 'José ✓', amount: '10', block: 42 },
      }))!;
      await w.runDue();
      expect(outcomes).toEqual(['signature_mismatch']);
      secret = m.secret;
      await w.advance(30_000);
      await w.runDue();
      await t.app.services.webhooks.resend(t.app.fork(), { deliveryId: id });
      await w.runDue();
      expect(outcomes).toEqual(['signature_mismatch', 'processed', 'duplicate']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
