import { createHmac } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders, signRequest } from '../../src/modules/auth/request-signing.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** D1 request signing, end to end over HTTP against a real PostgreSQL. */

let t: TestApp;
let key: { id: string; keyId: string; secret: string };
const PATH = '/v1/cashier/status';
const BODY = JSON.stringify({ session: 'cs_doesnotexist' });

beforeAll(async () => {
  t = await startTestApp();
  key = await t.merchant();
});
afterAll(() => t?.close());

async function send(headers: Record<string, string>, body = BODY, target = PATH) {
  const res = await fetch(`${t.http.url}${target}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

const sign = (
  overrides: { now?: number; nonce?: string; body?: string; target?: string; method?: string } = {},
) =>
  signedHeaders(
    key.keyId,
    key.secret,
    { method: overrides.method ?? 'POST', target: overrides.target ?? PATH, body: overrides.body ?? BODY },
    overrides.now,
    overrides.nonce,
  );

describe('signed requests', () => {
  it('accepts a valid signature (the route then answers 404 for an unknown session)', async () => {
    const res = await send(sign());
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
  });

  it.each(['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature'])('401 when %s is missing', async (name) => {
    const headers = sign();
    delete headers[name];
    const res = await send(headers);
    expect(res.status).toBe(401);
    expect(res.body.error?.code).toBe('unauthorized');
  });

  it('401 for an unknown key id', async () => {
    const res = await send({ ...sign(), 'X-Api-Key': 'key_unknown' });
    expect(res.status).toBe(401);
  });

  it('401 when the timestamp is more than 300 s behind or ahead', async () => {
    // 10 s past the window either way: a loaded machine may take a second between signing and checking.
    for (const skew of [-310_000, 310_000]) {
      const res = await send(sign({ now: Date.now() + skew }));
      expect(res.status, `skew ${skew}`).toBe(401);
      expect(res.body.error?.message).toMatch(/300 seconds/);
    }
    // Within the window it passes signing.
    expect((await send(sign({ now: Date.now() - 250_000 }))).status).toBe(404);
  });

  it('401 for a bad signature, a tampered body and a tampered path', async () => {
    const headers = sign();
    expect((await send({ ...headers, 'X-Signature': 'a'.repeat(64) })).status).toBe(401);
    expect((await send(sign(), JSON.stringify({ session: 'cs_other' }))).status).toBe(401);
    expect((await send(sign(), BODY, '/v1/cashier/status?x=1')).status).toBe(401);
  });

  it('401 for a reused nonce, and the nonce is consumed only once the signature verifies', async () => {
    const nonce = `nonce-${Date.now()}`;
    // A forged request with this nonce must not burn it.
    expect((await send({ ...sign({ nonce }), 'X-Signature': 'b'.repeat(64) })).status).toBe(401);
    expect((await send(sign({ nonce }))).status).toBe(404);
    const replay = await send(sign({ nonce }));
    expect(replay.status).toBe(401);
    expect(replay.body.error?.message).toMatch(/nonce/);
  });

  it('401 for a malformed nonce', async () => {
    expect((await send(sign({ nonce: 'short' }))).status).toBe(401);
    expect((await send(sign({ nonce: 'has space in it' }))).status).toBe(401);
  });

  it('accepts exactly one of 50 concurrent requests with the same nonce', async () => {
    const headers = sign({ nonce: `race-${Date.now()}` });
    const results = await Promise.all(Array.from({ length: 50 }, () => send(headers)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 404)).toHaveLength(1);
    expect(statuses.filter((s) => s === 401)).toHaveLength(49);
  });

  it('signs GET requests with the empty-body hash and the query string', async () => {
    const headers = signedHeaders(key.keyId, key.secret, { method: 'GET', target: '/v1/cashier/status' });
    // A GET on a POST route: signing is not reached; the method is refused with Allow.
    const res = await fetch(`${t.http.url}/v1/cashier/status`, { headers });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('the canonical string follows D1 exactly', () => {
    const sig = signRequest('secret', {
      method: 'post',
      target: '/v1/x?a=1',
      timestamp: '1700000000',
      nonce: 'abcdefgh',
      body: '',
    });
    // Independent computation with node:crypto over the documented layout.
    const canonical =
      'POST\n/v1/x?a=1\n1700000000\nabcdefgh\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(sig).toBe(createHmac('sha256', 'secret').update(canonical).digest('hex'));
  });
});

describe('IP allowlist', () => {
  it('403 when the caller is not allowlisted; allowed once its address is', async () => {
    const other = await t.merchant('allowlisted');
    const em = t.app.fork();
    await t.app.services.merchants.setAllowlist(em, other.id, ['203.0.113.0/24']);
    const res = await t.signed(other, 'POST', PATH, { session: 'cs_x' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    await t.app.services.merchants.setAllowlist(em, other.id, ['127.0.0.1', '::1']);
    expect((await t.signed(other, 'POST', PATH, { session: 'cs_x' })).status).toBe(404);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
    const other = await t.merchant('proxy');
    await t.app.services.merchants.setAllowlist(t.app.fork(), other.id, ['198.51.100.7']);
    const res = await t.signed(
      other,
      'POST',
      PATH,
      { session: 'cs_x' },
      { 'x-forwarded-for': '198.51.100.7' },
    );
    expect(res.status).toBe(403);
  });
});

describe('revoked keys', () => {
  it('401 once a key is revoked', async () => {
    const other = await t.merchant('revoked');
    expect((await t.signed(other, 'POST', PATH, { session: 'cs_x' })).status).toBe(404);
    await t.app.services.merchants.revokeKey(t.app.fork(), other.keyId);
    expect((await t.signed(other, 'POST', PATH, { session: 'cs_x' })).status).toBe(401);
  });
});

describe('nonce store degraded', () => {
  it('503 unavailable when the nonce cannot be recorded in time', async () => {
    // Hold an exclusive lock on the nonce table: the insert waits, hits its statement timeout, and
    // the request must answer 503 rather than hang or 500.
    const client = new pg.Client(t.config.databaseUrl);
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE request_nonces IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const res = await send(sign());
      expect(res.status).toBe(503);
      expect(res.body.error?.code).toBe('unavailable');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });
});
