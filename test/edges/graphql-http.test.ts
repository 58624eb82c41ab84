import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * `/graphql` answers bad input as the GraphQL-over-HTTP specification says: with
 * `Accept: application/graphql-response+json` a request that cannot execute is a 400, every error
 * carries its own message and an `extensions.code`, and none of them is logged as a server fault.
 */

let t: TestApp;
let token: string;
let stderr: string[];
beforeAll(async () => {
  t = await startTestApp();
  token = await t.operatorToken();
});
afterAll(() => t?.close());
afterEach(() => vi.restoreAllMocks());

/** Captures what the service logs while `run` executes. */
async function logged<T>(run: () => Promise<T>): Promise<T> {
  stderr = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return write(chunk);
  });
  return run();
}

const errorLines = () => stderr.filter((line) => line.includes('"level":"error"'));

type Errors = Array<{ message: string; extensions?: { code?: string } }>;

async function post(body: unknown, accept = 'application/graphql-response+json') {
  const res = await fetch(`${t.http.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: unknown; errors?: Errors };
  return { status: res.status, ...json };
}

it('a syntax error → 400 with the parser’s message and code validation, not logged as an error', async () => {
  const r = await logged(() => post({ query: '{ session(id: "x") { id ' }));
  expect(r.status).toBe(400);
  expect(r.errors?.[0]?.message).toMatch(/Syntax Error/);
  expect(r.errors?.[0]?.extensions?.code).toBe('validation');
  expect(errorLines()).toEqual([]);
});

it('an unknown field → 400 naming the field, code validation', async () => {
  const r = await logged(() => post({ query: '{ noSuchField }' }));
  expect(r.status).toBe(400);
  expect(r.errors?.[0]?.message).toMatch(/noSuchField/);
  expect(r.errors?.[0]?.extensions?.code).toBe('validation');
  expect(errorLines()).toEqual([]);
});

it('a bad variable → 400 with the coercion message, code validation', async () => {
  const r = await logged(() =>
    post({ query: 'query ($id: ID!) { session(id: $id) { id } }', variables: { id: {} } }),
  );
  expect(r.status).toBe(400);
  expect(r.errors?.[0]?.message).toMatch(/\$id/);
  expect(r.errors?.[0]?.extensions?.code).toBe('validation');
  const missing = await post({ query: 'query ($id: ID!) { session(id: $id) { id } }' });
  expect(missing.status).toBe(400);
  expect(missing.errors?.[0]?.extensions?.code).toBe('validation');
  expect(errorLines()).toEqual([]);
});

it('a wrong operation name, or several operations without one → 400, code validation', async () => {
  const unknown = await post({ query: 'query A { __typename }', operationName: 'B' });
  expect(unknown.status).toBe(400);
  expect(unknown.errors?.[0]?.message).toMatch(/operation/);
  expect(unknown.errors?.[0]?.extensions?.code).toBe('validation');
  const ambiguous = await post({ query: 'query A { __typename } query B { __typename }' });
  expect(ambiguous.status).toBe(400);
  expect(ambiguous.errors?.[0]?.extensions?.code).toBe('validation');
});

it('a mutation over GET → 405; malformed JSON → 400; both with a message and code', async () => {
  const get = await fetch(`${t.http.url}/graphql?query=${encodeURIComponent('mutation { __typename }')}`, {
    headers: { accept: 'application/graphql-response+json' },
  });
  expect(get.status).toBe(405);
  const body = (await get.json()) as { errors: Errors };
  expect(body.errors[0]?.extensions?.code).toBe('validation');
  const bad = await post('{"query": ');
  expect(bad.status).toBe(400);
  expect(bad.errors?.[0]?.extensions?.code).toBe('validation');
  expect(bad.errors?.[0]?.message).not.toMatch(/internal/i);
});

it('legacy application/json clients still get 200 for a document error, with the real message', async () => {
  const r = await post({ query: '{ noSuchField }' }, 'application/json');
  expect(r.status).toBe(200);
  expect(r.errors?.[0]?.message).toMatch(/noSuchField/);
  expect(r.errors?.[0]?.extensions?.code).toBe('validation');
});

it('a body that is not JSON → 400 also for legacy application/json clients (it is not a GraphQL request)', async () => {
  for (const accept of ['application/json', 'application/graphql-response+json', '*/*']) {
    const bad = await post('{"query": ', accept);
    expect(bad.status, accept).toBe(400);
    expect(bad.errors?.[0]?.extensions?.code).toBe('validation');
  }
});

it('a resolver’s own refusal keeps its code and stays 200 with data null (it did execute)', async () => {
  const r = await post({ query: '{ session(id: "cs_missing") { id } }' });
  expect(r.status).toBe(200);
  expect(r.errors?.[0]?.extensions?.code).toBe('not_found');
});

it('a document or variables nested 10 000 levels deep → 400 validation, not a stack overflow', async () => {
  const deepQuery = await logged(() =>
    post({ query: `{ ${'a { '.repeat(10_000)}b${' }'.repeat(10_000)} }` }),
  );
  expect(deepQuery.status).toBe(400);
  expect(deepQuery.errors?.[0]).toMatchObject({ extensions: { code: 'validation' } });
  expect(deepQuery.errors?.[0]?.message).toMatch(/nested deeper/);
  const deepList = await post({
    query: `{ session(id: ${'['.repeat(10_000)}"x"${']'.repeat(10_000)}) { id } }`,
  });
  expect(deepList.status).toBe(400);
  const variables = `${'{"a":'.repeat(10_000)}"x"${'}'.repeat(10_000)}`;
  const deepVariables = await post(
    `{"query":"query ($m: JSON) { __typename }","variables":{"m":${variables}}}`,
  );
  expect(deepVariables.errors?.[0]?.extensions?.code).toBe('validation');
  expect(errorLines()).toEqual([]);
});

it('a body in an unsupported media type → 415 with a message and code, not an empty reply', async () => {
  const res = await fetch(`${t.http.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'text/csv', accept: 'application/graphql-response+json' },
    body: 'query,{ __typename }',
  });
  expect(res.status).toBe(415);
  const body = (await res.json()) as { errors: Errors };
  expect(body.errors[0]).toMatchObject({ extensions: { code: 'validation' } });
  expect(body.errors[0]?.message).toMatch(/application\/json/);
});

it('CORS outside production: loopback origins (a local console) without credentials; any other origin gets none', async () => {
  for (const origin of ['http://localhost:3000', 'http://127.0.0.1:5173', 'http://[::1]:8081']) {
    const res = await fetch(`${t.http.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.headers.get('access-control-allow-origin'), origin).toBe(origin);
    expect(res.headers.get('access-control-allow-credentials'), origin).toBeNull();
  }
  for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
    const res = await fetch(`${t.http.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    expect(res.headers.get('access-control-allow-credentials'), origin).toBeNull();
  }
});
