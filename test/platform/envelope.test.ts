import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/** Every failure answers with the section 7 envelope and the documented status; never a 500. */

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
  expect(typeof body.error.message).toBe('string');
  return { status: res.status, code: body.error.code, message: body.error.message };
}

it('malformed JSON → 400 validation', async () => {
  const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/status', '{"session": '));
  expect(e).toMatchObject({ status: 400, code: 'validation' });
});

it('a body that is not a JSON object → 400 validation', async () => {
  for (const body of ['[]', '"text"', '42', 'null']) {
    const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/status', body));
    expect(e, body).toMatchObject({ status: 400, code: 'validation' });
  }
});

it('wrong types → 400 validation naming the field in API spelling', async () => {
  const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/status', { session: 42 }));
  expect(e).toMatchObject({ status: 400, code: 'validation' });
  expect(e.message).toMatch(/session/);
  const init = await envelope(await t.signed(key, 'POST', '/v1/cashier/init', { external_order_id: true }));
  expect(init).toMatchObject({ status: 400, code: 'validation' });
  expect(init.message).toMatch(/external_order_id/);
});

it('a missing required field → 400 validation', async () => {
  const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/status', {}));
  expect(e).toMatchObject({ status: 400, code: 'validation' });
  expect(e.message).toMatch(/session/);
});

it('an oversized body → 413 with code validation', async () => {
  const big = JSON.stringify({ session: 'x'.repeat(1024 * 1024 + 10) });
  const e = await envelope(await t.signed(key, 'POST', '/v1/cashier/status', big));
  expect(e).toMatchObject({ status: 413, code: 'validation' });
});

it('an unknown route → 404 not_found, signed or not', async () => {
  expect(await envelope(await fetch(`${t.http.url}/v1/nope`, { method: 'POST' }))).toMatchObject({
    status: 404,
    code: 'not_found',
  });
  expect(await envelope(await fetch(`${t.http.url}/nothing/here`))).toMatchObject({
    status: 404,
    code: 'not_found',
  });
});

it('a known path with the wrong method → 405 validation with Allow', async () => {
  const res = await fetch(`${t.http.url}/v1/cashier/init`, { method: 'DELETE' });
  expect(res.headers.get('allow')).toBe('POST');
  expect(await envelope(res)).toMatchObject({ status: 405, code: 'validation' });
});

it('serves the OpenAPI document unauthenticated', async () => {
  const res = await fetch(`${t.http.url}/openapi.json`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as { info: { version: string }; paths: Record<string, unknown> };
  expect(doc.info.version).toBe('0.2.0');
  expect(doc.paths['/v1/cashier/init']).toBeDefined();
});

it('readiness reports the database and names a network none of whose nodes answers', async () => {
  // This app's only network points at a port nothing listens on.
  const res = await fetch(`${t.http.url}/readyz`);
  expect(res.status).toBe(503);
  const body = (await res.json()) as {
    error: { code: string; message: string; details: Record<string, unknown> };
  };
  expect(body.error.code).toBe('unavailable');
  expect(body.error.message).toMatch(/^not ready: network eth: no node answers/);
  expect(body.error.details).toMatchObject({
    database: 'ok',
    networks: { eth: expect.stringMatching(/^no node/) },
  });
  expect((await fetch(`${t.http.url}/healthz`)).status).toBe(200);
});

it('a NUL character in any string or key → 400 validation naming it, on every route', async () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['/v1/cashier/status', { session: 'cs_\u0000' }, /^session: /],
    ['/v1/cashier/step', { session: 'cs_x', action: 'select_network', value: 'e\u0000th' }, /^value: /],
    ['/v1/cashier/init', { language: 'e\u0000' }, /^language: /],
    ['/v1/cashier/init', { metadata: { 'k\u0000': 'v' } }, /^metadata\.k/],
  ];
  for (const [path, body, field] of cases) {
    const e = await envelope(await t.signed(key, 'POST', path, body));
    expect(e, `${path} ${JSON.stringify(body)}`).toMatchObject({ status: 400, code: 'validation' });
    expect(e.message).toMatch(field);
    expect(e.message).toMatch(/NUL/);
  }
});

it('a NUL character in a GraphQL variable or string literal → validation error, not a 500', async () => {
  const token = await t.operatorToken();
  const query = 'query ($id: ID!) { session(id: $id) { id } }';
  const viaVariable = await t.graphql(token, query, { id: 'cs_\u0000' });
  expect(viaVariable.errors?.[0]?.extensions?.code).toBe('validation');
  expect(viaVariable.errors?.[0]?.message).toMatch(/variables\.id: .*NUL/);
  const viaLiteral = await t.graphql(token, '{ session(id: "cs_\\u0000") { id } }');
  expect(viaLiteral.errors?.[0]?.extensions?.code).toBe('validation');
  const braced = await t.graphql(token, '{ session(id: "cs_\\u{0}") { id } }');
  expect(braced.errors?.[0]?.extensions?.code).toBe('validation');
});
