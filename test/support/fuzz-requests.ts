/**
 * The requests the HTTP fuzzer sends (test/support/fuzz.ts): fast-check arbitraries for every route of
 * the OpenAPI document (bodies generated from its JSON Schemas, so a new route is fuzzed without an
 * edit here), stray paths and methods, and GraphQL documents; mixed with wrong types, boundary
 * lengths, unicode, NUL, huge and deeply nested bodies, bad headers and bad signatures.
 */
import fc from 'fast-check';
import { routes as routeTable } from '../../src/modules/index.ts';
import { openApiDocument } from '../../src/rest/openapi.ts';

/** How a generated request authenticates. */
export type Auth =
  | 'valid'
  | 'none'
  | 'missing-key'
  | 'missing-signature'
  | 'bad-signature'
  | 'unknown-key'
  | 'skewed'
  | 'bad-timestamp'
  | 'bad-nonce'
  | 'replayed'
  | 'operator';

/** One generated request, signed (or not, per `auth`) when it is sent. */
export interface Plan {
  method: string;
  target: string;
  body: string | Uint8Array | undefined;
  contentType: string | undefined;
  auth: Auth;
  headers: Record<string, string>;
}

type Schema = Record<string, unknown>;

/** Strings the domain gives meaning to, so generated bodies hit real branches (section 3.2). */
function dictionary(sessionIds: string[]) {
  return fc.constantFrom(
    ...sessionIds,
    'cs_missing',
    'eth',
    'bsc',
    'tron',
    'USDT',
    'DAI',
    'select_network',
    'wallet_connected',
    'select_token',
    'submit_amount',
    'approval_submitted',
    'signature_submitted',
    'change_wallet',
    'poll',
    `0x${'ab'.repeat(20)}`,
    `0x${'cd'.repeat(32)}`,
    '125.50',
    '0',
    '0.000000000000000000001',
    '9'.repeat(78),
    '9'.repeat(200),
    'en',
    'ru',
    'https://merchant.example/webhook',
    'http://127.0.0.1:1/x',
  );
}

/** Values of the wrong kind, edge lengths and characters a careless or hostile client sends. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constant(1e308),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uFEFF',
    '\u202E',
    '😀'.repeat(50),
    '\uD800',
    "'; drop table x;--",
  ),
  fc.constantFrom('x'.repeat(129), 'x'.repeat(2049), 'x'.repeat(70_000)),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 4 }),
);

function stringFor(schema: Schema, words: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const options: fc.Arbitrary<unknown>[] = [words, fc.string({ maxLength: max ?? 64 })];
  if (typeof schema.pattern === 'string') options.push(fc.stringMatching(new RegExp(schema.pattern)));
  if (schema.format === 'uri' || schema.format === 'url') options.push(fc.webUrl());
  if (max !== undefined) options.push(fc.constantFrom('x'.repeat(max), 'x'.repeat(max + 1)));
  if (min > 0) options.push(fc.constantFrom('x'.repeat(min - 1)));
  return fc.oneof(...options);
}

/** A value for a JSON Schema node: usually of the right shape, sometimes hostile. */
function fromSchema(schema: Schema, words: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const right = shaped(schema, words);
  return fc.oneof({ weight: 5, arbitrary: right }, { weight: 1, arbitrary: hostile });
}

function shaped(schema: Schema, words: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union) return fc.oneof(...union.map((s) => shaped(s, words)));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  switch (schema.type) {
    case 'string':
      return stringFor(schema, words);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 31, Number.MAX_SAFE_INTEGER + 2));
    case 'number':
      return fc.double();
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const max = typeof schema.maxItems === 'number' ? Math.min(schema.maxItems + 1, 6) : 4;
      return fc.array(fromSchema(items, words), { maxLength: max });
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const model = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, fromSchema(v, words)]));
      const required = ((schema.required as string[] | undefined) ?? []).filter((k) => k in model);
      // A documented example (OpenAPI `examples`), whole or with one field regenerated: bodies that
      // pass validation often enough to reach the resolver of a route with many required fields.
      const examples = (schema.examples as Record<string, unknown>[] | undefined) ?? [];
      const near = examples.length
        ? [
            { weight: 1, arbitrary: fc.constantFrom(...examples) },
            {
              weight: 2,
              arbitrary: fc
                .tuple(fc.constantFrom(...examples), fc.constantFrom(...Object.keys(model)))
                .chain(([example, key]) => model[key]!.map((v) => ({ ...example, [key]: v }))),
            },
          ]
        : [];
      return fc.oneof(
        ...near,
        { weight: 4, arbitrary: fc.record(model, { requiredKeys: required }) },
        { weight: 1, arbitrary: fc.record(model, { requiredKeys: [] }) },
        // An unknown extra key next to the known ones.
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.record(model, { requiredKeys: required }), fc.string({ maxLength: 12 }), hostile)
            .map(([o, k, v]) => ({ ...o, [k]: v })),
        },
      );
    }
    default:
      return hostile;
  }
}

/** Body text: JSON of a generated value, or text no JSON parser should accept as an object. */
function bodyText(value: fc.Arbitrary<unknown>): fc.Arbitrary<string | Uint8Array | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: value.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        value.map((v) => JSON.stringify(v).slice(0, -1)),
        fc.constantFrom(
          '[]',
          '"text"',
          '42',
          'null',
          'true',
          '{',
          '{"a":1,}',
          '\uFEFF{}',
          '{"a":1}{"b":2}',
          '{"a":1,"a":2}',
        ),
        fc.constantFrom(31, 32, 33, 1000, 10_000).map((n) => `{"metadata":${'['.repeat(n)}${']'.repeat(n)}}`),
        fc.constantFrom(31, 33, 10_000).map((n) => `{"metadata":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
        fc.constantFrom(1024 * 1024 - 20, 1024 * 1024 + 1).map((n) => `{"session":"${'x'.repeat(n)}"}`),
        fc.uint8Array({ maxLength: 64 }),
        fc.string({ unit: 'binary', maxLength: 200 }),
      ),
    },
  );
}

/** Header values a client could send (latin-1 without controls, as HTTP allows). */
const headerValue = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

const authMode: fc.Arbitrary<Auth> = fc.oneof(
  { weight: 14, arbitrary: fc.constant<Auth>('valid') },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Auth>(
      'none',
      'missing-key',
      'missing-signature',
      'bad-signature',
      'unknown-key',
      'skewed',
      'bad-timestamp',
      'bad-nonce',
      'replayed',
      'operator',
    ),
  },
);

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant<string | undefined>('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom<string | undefined>(
      undefined,
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/graphql',
      'application/jsonx',
      '',
    ),
  },
);

const extraHeaders = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Record<string, string>>({}) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.dictionary(fc.stringMatching(/^x-[a-z]{1,10}$/), headerValue, { maxKeys: 3 }),
      fc.constant({ 'x-big': 'a'.repeat(20_000) }),
      headerValue.map((v) => ({ 'x-forwarded-for': v })),
      headerValue.map((v) => ({ accept: v })),
      fc.constant({ 'content-encoding': 'gzip' }),
    ),
  },
);

const otherMethod = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS');

/** A request to a route of the OpenAPI document (every `/v1` route, health and readiness). */
function routeRequest(words: fc.Arbitrary<string>): fc.Arbitrary<Plan> {
  const doc = openApiDocument(routeTable) as { paths: Record<string, Record<string, Schema>> };
  const routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const content = (op.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined;
      const schema = (content?.['application/json']?.schema as Schema | undefined) ?? { type: 'object' };
      return { path, method: method.toUpperCase(), body: fromSchema(schema, words) };
    }),
  );
  return fc.oneof(
    ...routes.map((route) =>
      fc
        .record({
          method: fc.oneof(
            { weight: 9, arbitrary: fc.constant(route.method) },
            { weight: 1, arbitrary: otherMethod },
          ),
          query: fc.oneof(
            { weight: 9, arbitrary: fc.constant('') },
            { weight: 1, arbitrary: fc.webQueryParameters().map((q) => `?${q}`) },
          ),
          body: bodyText(route.body),
          contentType,
          auth: authMode,
          headers: extraHeaders,
        })
        .map(({ method, query, ...rest }) => ({ ...rest, method, target: `${route.path}${query}` })),
    ),
  );
}

/**
 * One well-formed, signed request per documented operation, from its OpenAPI example (`{}` where it has
 * none): sent before the generated ones, so every route is reached whatever the seed draws.
 */
export function exampleRequests(): Plan[] {
  const doc = openApiDocument(routeTable) as { paths: Record<string, Record<string, Schema>> };
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const content = (op.requestBody as Schema | undefined)?.content as Record<string, Schema> | undefined;
      const schema = content?.['application/json']?.schema as Schema | undefined;
      const example = (schema?.examples as unknown[] | undefined)?.[0];
      const hasBody = method.toUpperCase() !== 'GET' && method.toUpperCase() !== 'HEAD';
      return {
        method: method.toUpperCase(),
        target: path,
        body: hasBody ? JSON.stringify(example ?? {}) : undefined,
        contentType: hasBody ? 'application/json' : undefined,
        auth: 'valid' as const,
        headers: {},
      };
    }),
  );
}

/** A request to somewhere that is not a route. */
const strayRequest: fc.Arbitrary<Plan> = fc.record({
  method: otherMethod,
  target: fc.oneof(
    fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)),
    fc.webSegment().map((s) => `/v1/${s}`),
    fc.constantFrom(
      '/v1/',
      '/V1/CASHIER/INIT',
      '/v1/cashier/init/',
      '/v1/%00',
      '/v1/cashier/%2e%2e/init',
      `/${'a'.repeat(8000)}`,
    ),
  ),
  body: bodyText(hostile),
  contentType,
  auth: authMode,
  headers: extraHeaders,
});

const GRAPHQL_DOCUMENTS = [
  '{ __typename }',
  'query ($id: ID!) { session(id: $id) { id step status } }',
  'mutation ($input: CashierInitInput!) { cashierInit(input: $input) { step session } }',
  'query { sessions(first: 5) { edges { node { id } } } }',
  '{ __schema { types { name } } }',
];

/** GraphQL over HTTP: real documents, mutated ones, random text and variables. */
const graphqlRequest: fc.Arbitrary<Plan> = fc
  .record({
    query: fc.oneof(
      fc.constantFrom(...GRAPHQL_DOCUMENTS),
      fc
        .tuple(fc.constantFrom(...GRAPHQL_DOCUMENTS), fc.nat(), fc.string({ unit: 'binary', maxLength: 3 }))
        .map(
          ([doc, at, insert]) => doc.slice(0, at % doc.length) + insert + doc.slice((at % doc.length) + 1),
        ),
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.constantFrom(100, 10_000).map((n) => `{ ${'a { '.repeat(n)}b${' }'.repeat(n)} }`),
    ),
    variables: fc.option(fc.dictionary(fc.constantFrom('id', 'input', 'x'), hostile, { maxKeys: 2 })),
    operationName: fc.option(fc.constantFrom('A', '', 'x'.repeat(300))),
    accept: fc.constantFrom('application/graphql-response+json', 'application/json', '*/*'),
    token: fc.boolean(),
    raw: fc.option(
      fc.constantFrom('{"query":', '[]', '{"query": 5}', '{"query":"{__typename}","variables":"x"}'),
    ),
  })
  .map(({ query, variables, operationName, accept, token, raw }) => ({
    method: 'POST',
    target: '/graphql',
    body: raw ?? JSON.stringify({ query, variables, operationName }),
    contentType: 'application/json',
    auth: token ? 'operator' : 'none',
    headers: { accept },
  }));

/** Every kind of request, weighted: mostly routes of the API, some stray ones and GraphQL. */
export function requestArbitrary(sessionIds: string[]): fc.Arbitrary<Plan> {
  return fc.oneof(
    { weight: 14, arbitrary: routeRequest(dictionary(sessionIds)) },
    { weight: 2, arbitrary: strayRequest },
    { weight: 4, arbitrary: graphqlRequest },
  );
}
