import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/graphql/limits.ts';
import { MAX_BODY_BYTES } from '../../src/http/body.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * One GraphQL operation is bounded (src/graphql/limits.ts): the anonymous hosted fields cannot be
 * aliased hundreds of times, nor fields multiplied through fragments, while what the hosted page and
 * GraphiQL send passes.
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

type Answer = {
  status: number;
  body: { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string } }> };
};

async function post(query: string, token?: string): Promise<Answer> {
  const res = await fetch(`${t.http.url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: await res.json() };
}

const hostedField = (alias: string) =>
  `${alias}: hostedLink(input: { token: "no-such-token-aaaaaaaaaaaaaaaa" }) { language }`;

it('refuses 500 aliases of an anonymous hosted field before running any, as a validation error', async () => {
  const aliases = Array.from({ length: 500 }, (_, i) => hostedField(`a${i}`)).join('\n');
  const { status, body } = await post(`query Many { ${aliases} }`);
  expect(status).toBe(400);
  expect(body.data).toBeUndefined();
  expect(body.errors).toEqual([
    expect.objectContaining({
      message: `operation Many uses more than ${GRAPHQL_LIMITS.aliases} aliases`,
      extensions: expect.objectContaining({ code: 'validation' }),
    }),
  ]);
});

it('counts fields through fragments where they are spread', async () => {
  const spreads = Array.from({ length: 40 }, () => '...F').join(' ');
  const fragments = `fragment F on Query { ${Array.from({ length: 30 }, () => '__typename').join(' ')} }`;
  const { status, body } = await post(`query Spread { ${spreads} } ${fragments}`);
  expect(status).toBe(400);
  expect(body.errors?.[0]?.message).toBe(
    `operation Spread selects more than ${GRAPHQL_LIMITS.fields} fields (fragments counted where spread)`,
  );
});

it('lets a few aliases, the hosted page’s own shape and GraphiQL’s introspection through', async () => {
  const few = await post(`{ ${[hostedField('a'), hostedField('b')].join(' ')} }`);
  // Past the limit check: the unknown token is the resolver's answer.
  expect(few.body.errors?.some((e) => /aliases|fields/.test(e.message))).toBe(false);
  expect(few.body.errors?.[0]?.extensions?.code).toBe('not_found');
  const token = await t.operatorToken();
  const introspection = await post(getIntrospectionQuery(), token);
  expect(introspection.status).toBe(200);
  expect(introspection.body.errors).toBeUndefined();
});

/** An anonymous POST of `size` bytes of JSON, streamed without Content-Length when `chunked`. */
async function postBytes(size: number, chunked: boolean, accept = 'application/graphql-response+json') {
  const head = '{"query":"{ __typename }","variables":{"pad":"';
  const tail = '"}}';
  const bytes = new TextEncoder().encode(`${head}${'a'.repeat(size - head.length - tail.length)}${tail}`);
  const body = chunked
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
          controller.close();
        },
      })
    : bytes;
  const res = await fetch(`${t.http.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

it('refuses an anonymous body over 1 MiB with 413, as /v1 does, declared or streamed', async () => {
  const refusal = {
    errors: [{ message: `request body exceeds ${MAX_BODY_BYTES} bytes`, extensions: { code: 'validation' } }],
  };
  for (const chunked of [false, true]) {
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const what = `${chunked ? 'streamed' : 'declared'}, accept ${accept}`;
      const over = await postBytes(MAX_BODY_BYTES + 1, chunked, accept);
      expect(over.status, what).toBe(413);
      expect(over.body, what).toEqual(refusal);
    }
  }
  const within = await postBytes(MAX_BODY_BYTES, false);
  expect(within.status).toBe(200);
  expect(within.body).toEqual({ data: { __typename: 'Query' } });
});
