import { getIntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * `/graphql` in production (NODE_ENV=production): no GraphiQL, the schema only to operators, and
 * cross-origin browser access only for GRAPHQL_CORS_ORIGINS, never with credentials.
 */

const CONSOLE = 'https://console.example.com';
let prod: TestApp;
let listed: TestApp;
let token: string;
beforeAll(async () => {
  [prod, listed] = await Promise.all([
    startTestApp({ env: { NODE_ENV: 'production' } }),
    startTestApp({
      env: { NODE_ENV: 'production', GRAPHQL_CORS_ORIGINS: `${CONSOLE}, http://127.0.0.1:5173` },
    }),
  ]);
  token = await prod.operatorToken();
});
afterAll(() => Promise.all([prod?.close(), listed?.close()]));

async function post(t: TestApp, query: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.http.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { res, body: (await res.json()) as { data?: unknown; errors?: Array<{ extensions?: unknown }> } };
}

const preflight = (t: TestApp, origin: string) =>
  fetch(`${t.http.url}/graphql`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });

describe('GraphiQL', () => {
  it('is not served: no page for a browser, no assets', async () => {
    const res = await fetch(`${prod.http.url}/graphql`, {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.headers.get('content-type')).not.toMatch(/text\/html/);
    expect(await res.text()).not.toMatch(/graphiql/i);
    const asset = await fetch(`${prod.http.url}/assets/graphiql/graphiql.js`);
    expect(asset.status).toBe(404);
    expect(await asset.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('introspection', () => {
  const refused = {
    errors: [
      { message: 'introspection needs an operator bearer token', extensions: { code: 'unauthorized' } },
    ],
  };

  it('is refused without an operator token (__schema, __type, in a fragment, a bad token), answers an operator; __typename stays open', async () => {
    for (const [query, headers] of [
      [getIntrospectionQuery(), {}],
      ['{ __type(name: "Query") { name } }', {}],
      ['query { ...F } fragment F on Query { __schema { queryType { name } } }', {}],
      ['{ __schema { queryType { name } } }', { authorization: 'Bearer not-a-token' }],
    ] as const) {
      const { res, body } = await post(prod, query, headers);
      expect(res.status, query).toBe(401);
      expect(body, query).toEqual(refused);
    }
    const operator = await post(prod, getIntrospectionQuery(), { authorization: `Bearer ${token}` });
    expect(operator.res.status).toBe(200);
    expect(operator.body.errors).toBeUndefined();
    const anyone = await post(prod, '{ __typename }');
    expect(anyone.body).toEqual({ data: { __typename: 'Query' } });
  });

  it('is refused over WebSocket too', async () => {
    const client = createClient({
      url: `${prod.http.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      lazy: true,
    });
    try {
      const result = await new Promise<unknown>((resolve, reject) => {
        let value: unknown;
        client.subscribe(
          { query: '{ __schema { queryType { name } } }' },
          { next: (v) => (value = v), error: reject, complete: () => resolve(value) },
        );
      });
      expect(result).toMatchObject({ errors: [{ extensions: { code: 'unauthorized' } }] });
      expect((result as { data?: unknown }).data).toBeUndefined();
    } finally {
      await client.dispose();
    }
  });
});

describe('CORS', () => {
  it('with GRAPHQL_CORS_ORIGINS unset, answers no other origin: no allow-origin, never credentials', async () => {
    for (const origin of ['https://evil.example', CONSOLE, 'http://localhost:3000']) {
      const { res } = await post(prod, '{ __typename }', { origin });
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
      expect(res.headers.get('access-control-allow-credentials'), origin).toBeNull();
      const pre = await preflight(prod, origin);
      expect(pre.headers.get('access-control-allow-origin'), origin).toBeNull();
      expect(pre.headers.get('access-control-allow-credentials'), origin).toBeNull();
    }
  });

  it('answers exactly the listed origins, without credentials, and varies by Origin', async () => {
    for (const origin of [CONSOLE, 'http://127.0.0.1:5173']) {
      const { res } = await post(listed, '{ __typename }', { origin });
      expect(res.headers.get('access-control-allow-origin'), origin).toBe(origin);
      expect(res.headers.get('access-control-allow-credentials'), origin).toBeNull();
      expect(res.headers.get('vary'), origin).toMatch(/\bOrigin\b/);
      const pre = await preflight(listed, origin);
      expect(pre.headers.get('access-control-allow-origin'), origin).toBe(origin);
      expect(pre.headers.get('access-control-allow-headers')).toMatch(/authorization/);
      expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    }
    for (const origin of ['https://evil.example', `${CONSOLE}.evil.example`, 'http://127.0.0.1:5174']) {
      const { res } = await post(listed, '{ __typename }', { origin });
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
      expect(res.headers.get('vary'), origin).toMatch(/\bOrigin\b/);
      expect((await preflight(listed, origin)).headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });
});
