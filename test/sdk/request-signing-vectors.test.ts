import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { signingFetch } from '../../sdk/client.ts';
import { canonicalRequest, signedHeaders, signRequest } from '../../sdk/request-signing.ts';
import { encryptSecret } from '../../src/lib/crypto.ts';
import { ApiKey } from '../../src/modules/auth/auth.entity.ts';
import { Authenticator } from '../../src/modules/auth/authenticator.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** The published request-signing vectors: the service's verifier and the SDK's client agree with them. */

interface Vector {
  name: string;
  key_id: string;
  secret: string;
  method: string;
  target: string;
  timestamp: string;
  nonce: string;
  body: string;
  body_sha256?: string;
  canonical?: string;
  signature: string;
}
const REQUEST_VECTORS = JSON.parse(
  readFileSync(new URL('../../sdk/request-signing-test-vectors.json', import.meta.url), 'utf8'),
) as { vectors: Vector[]; invalid: (Vector & { now: number; reason: string })[] };

describe('the vectors are right', () => {
  it.each(REQUEST_VECTORS.vectors)('$name: recomputed independently of the SDK', (v) => {
    const bodyHash = createHash('sha256').update(v.body, 'utf8').digest('hex');
    expect(bodyHash).toBe(v.body_sha256);
    const canonical = [v.method, v.target, v.timestamp, v.nonce, bodyHash].join('\n');
    expect(canonical).toBe(v.canonical);
    expect(createHmac('sha256', v.secret).update(canonical, 'utf8').digest('hex')).toBe(v.signature);
  });
});

describe('the SDK signs as the vectors say', () => {
  afterEach(() => vi.useRealTimers());

  it.each(REQUEST_VECTORS.vectors)('$name: canonicalRequest, signRequest and signedHeaders', (v) => {
    const input = {
      method: v.method,
      target: v.target,
      timestamp: v.timestamp,
      nonce: v.nonce,
      body: v.body,
    };
    expect(canonicalRequest(input)).toBe(v.canonical);
    expect(signRequest(v.secret, input)).toBe(v.signature);
    expect(signedHeaders(v.key_id, v.secret, input, Number(v.timestamp) * 1000, v.nonce)).toEqual({
      'X-Api-Key': v.key_id,
      'X-Timestamp': v.timestamp,
      'X-Nonce': v.nonce,
      'X-Signature': v.signature,
    });
  });

  it.each(REQUEST_VECTORS.vectors)('$name: the client sends exactly these headers and bytes', async (v) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Number(v.timestamp) * 1000);
    let sent: Request | undefined;
    const send = signingFetch({
      baseUrl: 'http://gateway.test',
      keyId: v.key_id,
      secret: v.secret,
      nonce: () => v.nonce,
      fetch: async (request) => {
        sent = request;
        return new Response('{}');
      },
    });
    await send(
      new Request(`http://gateway.test${v.target}`, {
        method: v.method,
        ...(v.body ? { body: v.body, headers: { 'content-type': 'application/json' } } : {}),
      }),
    );
    expect(sent?.headers.get('x-signature')).toBe(v.signature);
    expect(sent?.headers.get('x-timestamp')).toBe(v.timestamp);
    expect(await sent?.text()).toBe(v.body);
  });

  it.each(REQUEST_VECTORS.invalid.filter((v) => v.reason === 'signature does not match'))(
    '$name: the SDK does not produce the given signature',
    (v) => {
      expect(signRequest(v.secret, { ...v })).not.toBe(v.signature);
    },
  );
});

describe('the service’s verifier agrees with the vectors', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    const merchant = await t.merchant('Vectors');
    const em = t.app.fork();
    const keys = new Map(
      [...REQUEST_VECTORS.vectors, ...REQUEST_VECTORS.invalid].map((v) => [v.key_id, v.secret]),
    );
    for (const [id, secret] of keys) {
      em.create(ApiKey, {
        id,
        merchant: merchant.id,
        label: 'vectors',
        secretSealed: encryptSecret(t.config.secretsKey!, secret),
      });
    }
    await em.flush();
  });
  afterAll(() => t?.close());

  const verifierAt = (seconds: number) =>
    new Authenticator({ secretsKey: t.config.secretsKey!, nonces: t.app.nonces, now: () => seconds * 1000 });
  const request = (v: Vector) => ({
    method: v.method,
    target: v.target,
    headers: {
      'x-api-key': v.key_id,
      'x-timestamp': v.timestamp,
      'x-nonce': v.nonce,
      'x-signature': v.signature,
    },
    body: Buffer.from(v.body, 'utf8'),
    clientIp: '127.0.0.1',
  });

  it.each(REQUEST_VECTORS.vectors)('$name: accepted', async (v) => {
    await expect(verifierAt(Number(v.timestamp)).verify(t.app.fork(), request(v))).resolves.toMatchObject({
      keyId: v.key_id,
    });
  });

  it.each(REQUEST_VECTORS.invalid)('$name: refused with 401', async (v) => {
    await expect(verifierAt(v.now).verify(t.app.fork(), request(v))).rejects.toMatchObject({
      code: 'unauthorized',
      message: v.reason,
    });
  });
});
