import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signedHeaders } from '../../src/modules/auth/request-signing.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** What a careless client or a fuzzer sends to `/v1`: always a precise 4xx in the section-7 envelope. */

let t: TestApp;
let key: { id: string; keyId: string; secret: string };
beforeAll(async () => {
  t = await startTestApp();
  key = await t.merchant();
});
afterAll(() => t?.close());

async function envelope(res: Response) {
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  return { status: res.status, code: body.error.code, message: body.error.message };
}

async function sessionCount(): Promise<number> {
  const rows = await t.app.fork().getConnection().execute('select count(*)::int as n from sessions');
  return Number(rows[0]?.n);
}

/** One raw HTTP exchange, for what fetch refuses to send; resolves to the status line and body. */
function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
  const { port, hostname } = new URL(t.http.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body });
    });
  });
}

it('10 000 levels of nesting → 400 validation before any recursive walk', async () => {
  for (const body of [
    `{"metadata":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
    `{"metadata":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
    `{"a":${'['.repeat(100_000)}`,
  ]) {
    const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/init', body));
    expect(e).toMatchObject({ status: 400, code: 'validation' });
    expect(e.message).toMatch(/nest/);
  }
});

it('ordinary nesting (a few levels, brackets inside strings) is accepted', async () => {
  const e = await t.signed(key, 'POST', '/v1/cashier/status', { session: 'cs_[[[{{{"]]]}}}' });
  expect((await envelope(e)).code).toBe('not_found');
});

it('an amount with more digits than the column holds → 400 validation naming the field, no row', async () => {
  const before = await sessionCount();
  for (const amount of ['9'.repeat(200), `1.${'0'.repeat(150)}1`, '1'.repeat(79)]) {
    const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/init', { amount }));
    expect(e, amount).toMatchObject({ status: 400, code: 'validation' });
    expect(e.message).toMatch(/^amount: /);
  }
  expect(await sessionCount()).toBe(before);
});

it('a signed POST as text/plain (or any non-JSON type) → 415 in the envelope, no session opened', async () => {
  const before = await sessionCount();
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
    const res = await t.signed(key, 'POST', '/v1/cashier/init', {}, { 'content-type': type });
    const e = await envelope(res);
    expect(e, type).toMatchObject({ status: 415, code: 'validation' });
    expect(e.message).toMatch(/application\/json/);
  }
  const headers = signedHeaders(key.keyId, key.secret, {
    method: 'POST',
    target: '/v1/cashier/init',
    body: '{}',
  });
  const noType = await raw(
    `POST /v1/cashier/init HTTP/1.1\r\nhost: x\r\nconnection: close\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}content-length: 2\r\n\r\n{}`,
  );
  expect(noType.status).toBe(415);
  expect(await sessionCount()).toBe(before);
  // JSON with a charset, or upper case, is still JSON.
  const ok = await t.signed(
    key,
    'POST',
    '/v1/cashier/init',
    {},
    { 'content-type': 'Application/JSON; charset=UTF-8' },
  );
  expect(ok.status).toBe(200);
});

it('an empty POST needs no content type (all-optional body is {})', async () => {
  const headers = signedHeaders(key.keyId, key.secret, {
    method: 'POST',
    target: '/v1/cashier/init',
    body: '',
  });
  const res = await fetch(`${t.http.url}/v1/cashier/init`, { method: 'POST', headers });
  expect(res.status).toBe(200);
});

it('headers over the limit → 431 with the envelope, not Node’s bare reply', async () => {
  const r = await raw(`GET /healthz HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`);
  expect(r.status).toBe(431);
  expect(r.headers).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(r.body)).toEqual({
    error: { code: 'validation', message: expect.stringMatching(/header/) },
  });
});

it('a request Node cannot parse → 400 with the envelope', async () => {
  const r = await raw('GARBAGE\r\n\r\n');
  expect(r.status).toBe(400);
  expect(JSON.parse(r.body)).toMatchObject({ error: { code: 'validation' } });
});

it('a request target that is no URL → 400 with the envelope, and the server goes on serving', async () => {
  // The target is parsed for the route and again for the metrics label once answered: a throw there
  // (outside the request's promise) would end the process.
  const r = await raw('GET http://[bad HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
  expect(r.status).toBe(400);
  expect(JSON.parse(r.body)).toEqual({ error: { code: 'validation', message: 'malformed request target' } });
  expect((await fetch(`${t.http.url}/healthz`)).status).toBe(200);
});

it('an unknown key with quotes or odd characters is named, not "invalid value"', async () => {
  for (const name of ['"9h"', 'a"b', 'x y']) {
    const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/init', { [name]: 1 }));
    expect(e, name).toMatchObject({ status: 400, code: 'validation' });
    expect(e.message, name).toMatch(/^unknown field /);
  }
});
