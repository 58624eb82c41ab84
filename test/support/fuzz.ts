/**
 * The HTTP fuzzer of issue #11: seeded, reproducible requests against the real server. Bodies are
 * generated per route from the OpenAPI document (so a new route is fuzzed without touching this file),
 * mixed with wrong types, boundary lengths, unicode, NUL, huge and deeply nested bodies, bad headers
 * and bad signatures; most requests are validly signed so they reach the resolvers. Every answer must
 * be below 500, every error the section-7 envelope with a documented code (GraphQL: a documented
 * `extensions.code`), and a refused request must leave no row behind.
 *
 * Used by test/edges/fuzz.test.ts (a few hundred cases in `npm test`) and scripts/fuzz.ts (`npm run fuzz`).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type App, createApp } from '../../src/app.ts';
import { type NetworkFile, networkFileSchema } from '../../src/chains/networks.ts';
import { loadConfig } from '../../src/config.ts';
import { ERROR_STATUS } from '../../src/errors.ts';
import { type HttpServer, startHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { signRequest } from '../../src/modules/auth/request-signing.ts';
import { openApiDocument } from '../../src/rest/openapi.ts';
import { routes } from '../../src/rest/routes.ts';

/** Codes section 7.2 documents for a client's mistake or a transient fault; `internal` is a failure. */
const DOCUMENTED_CODES = new Set([
  'validation',
  'unsupported',
  'invalid_action',
  'insufficient_funds',
  'insufficient_allowance',
  'tx_reverted',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'expired',
  'unavailable',
]);

/** Refusals only a resolver gives: the request got past authentication and input validation. */
const RESOLVER_CODES = ['not_found', 'invalid_action', 'conflict', 'unsupported', 'expired'];

/** HTTP statuses an envelope code may come with (`validation` also covers 405, 408, 413, 415, 431). */
const STATUSES_OF: Record<string, number[]> = {
  validation: [400, 405, 408, 413, 415, 431],
};
const statusesOf = (code: string) =>
  STATUSES_OF[code] ?? [ERROR_STATUS[code as keyof typeof ERROR_STATUS]].filter(Boolean);

/** Tables a refused request must not change. Nonces are consumed once a signature verifies (D1). */
const WATCHED_TABLES = [
  'merchants',
  'api_keys',
  'settlement_wallets',
  'merchant_allowed_ips',
  'operator_tokens',
  'sessions',
  'webhook_events',
  'webhook_deliveries',
  'webhook_attempts',
];

/** One network, no tokens and an unreachable node: the fuzzer exercises the service, not a chain. */
const FUZZ_NETWORKS: NetworkFile = networkFileSchema.parse({
  networks: [{ id: 'eth', kind: 'evm', chainId: 31337, rpcUrls: ['http://127.0.0.1:9'], tokens: [] }],
});

export interface FuzzTarget {
  app: App;
  http: HttpServer;
  key: { keyId: string; secret: string };
  operatorToken: string;
  /** Ids of sessions opened before fuzzing, so step and status calls find real sessions. */
  sessionIds: string[];
  close(): Promise<void>;
}

/** The whole service on `databaseUrl` (a migrated database), with a merchant, a wallet and sessions. */
export async function startFuzzTarget(databaseUrl: string): Promise<FuzzTarget> {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    NETWORKS_FILE: '(in memory)',
    SECRETS_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'error',
  });
  const app = await createApp({ config, networks: FUZZ_NETWORKS, logger: createLogger('error') });
  const http = await startHttpServer(app);
  const em = app.fork();
  const merchant = await app.services.merchants.create(em, { name: 'Fuzz merchant' });
  const issued = await app.services.merchants.issueKey(em, merchant.id);
  await app.services.merchants.setSettlementWallet(em, merchant.id, 'eth', `0x${'ab'.repeat(20)}`);
  const operatorToken = (await app.services.operators.createToken(app.fork(), 'fuzz')).token;
  const key = { keyId: issued.id, secret: issued.secret };
  const sessionIds: string[] = [];
  for (const body of [{}, { network: 'eth' }, { external_order_id: 'fuzz-seed', player_id: 'p1' }]) {
    const res = await send(http.url, { ...plan('POST', '/v1/cashier/init', JSON.stringify(body)) }, key);
    sessionIds.push(((await res.json()) as { session: string }).session);
  }
  return {
    app,
    http,
    key,
    operatorToken,
    sessionIds,
    async close() {
      await http.close();
      await app.close();
    },
  };
}

/** How a generated request authenticates. */
type Auth =
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

interface Plan {
  method: string;
  target: string;
  body: string | Uint8Array | undefined;
  contentType: string | undefined;
  auth: Auth;
  headers: Record<string, string>;
}

const plan = (method: string, target: string, body?: string): Plan => ({
  method,
  target,
  body,
  contentType: 'application/json',
  auth: 'valid',
  headers: {},
});

/** The replay case needs a nonce that was already used; the first signed request provides one. */
let usedNonce: { timestamp: string; nonce: string; signature: string } | undefined;

function send(baseUrl: string, p: Plan, key: { keyId: string; secret: string }, operator?: string) {
  const headers: Record<string, string> = { ...p.headers };
  if (p.contentType !== undefined) headers['content-type'] = p.contentType;
  const bytes =
    p.body === undefined ? new Uint8Array() : typeof p.body === 'string' ? Buffer.from(p.body) : p.body;
  if (p.auth === 'operator' && operator) headers.authorization = `Bearer ${operator}`;
  else if (p.auth !== 'none') {
    const skew = p.auth === 'skewed' ? 3600 : 0;
    const timestamp = p.auth === 'bad-timestamp' ? '1e9' : String(Math.floor(Date.now() / 1000) - skew);
    const nonce = p.auth === 'bad-nonce' ? 'short' : randomUUID();
    const signature = signRequest(key.secret, {
      method: p.method,
      target: p.target,
      timestamp,
      nonce,
      body: bytes,
    });
    const signed = { timestamp, nonce, signature };
    if (p.auth === 'replayed' && usedNonce) Object.assign(signed, usedNonce);
    if (p.auth === 'valid') usedNonce ??= signed;
    if (p.auth !== 'missing-key')
      headers['x-api-key'] = p.auth === 'unknown-key' ? 'key_unknown000000' : key.keyId;
    headers['x-timestamp'] = signed.timestamp;
    headers['x-nonce'] = signed.nonce;
    if (p.auth !== 'missing-signature')
      headers['x-signature'] =
        p.auth === 'bad-signature'
          ? `${signed.signature.startsWith('f') ? '0' : 'f'}${signed.signature.slice(1)}`
          : signed.signature;
  }
  return fetch(`${baseUrl}${p.target}`, {
    method: p.method,
    headers,
    body: p.method === 'GET' || p.method === 'HEAD' ? undefined : (bytes as Uint8Array<ArrayBuffer>),
    redirect: 'manual',
  });
}

// ---- generators -------------------------------------------------------------------------------

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
      return fc.oneof(
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
  const doc = openApiDocument() as { paths: Record<string, Record<string, Schema>> };
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

// ---- the run ----------------------------------------------------------------------------------

export interface FuzzReport {
  cases: number;
  serverErrors: number;
  byStatus: Record<string, number>;
  /**
   * Per `/v1` route, answers that came from past authentication and input validation: a 200 or a
   * resolver's own refusal (not_found, invalid_action, conflict, …). Shows the mix reaches the logic.
   */
  reached: Record<string, number>;
  seed: number;
  /** fast-check's report of the first failing case, with its seed and path to replay it. */
  failure?: string;
}

async function rowCounts(app: App): Promise<string> {
  const sql = WATCHED_TABLES.map((t) => `(select count(*) from ${t})`).join(', ');
  const rows = await app.fork().getConnection().execute(`select ${sql}`, [], 'get');
  return JSON.stringify(rows);
}

/** Checks one answer; returns what is wrong with it, or undefined. */
function judge(p: Plan, res: Response, text: string): string | undefined {
  if (res.status >= 500) return `HTTP ${res.status}: ${text.slice(0, 300)}`;
  if (p.method === 'HEAD' || (p.method === 'OPTIONS' && res.status === 204)) return undefined;
  if (p.target === '/graphql') {
    if (res.status === 200 && !text) return undefined;
    let body: { errors?: Array<{ message?: unknown; extensions?: { code?: unknown } }> };
    try {
      body = JSON.parse(text);
    } catch {
      return res.status < 400
        ? undefined
        : `GraphQL HTTP ${res.status} without a JSON body: ${text.slice(0, 200)}`;
    }
    if (res.status >= 400 && !body.errors?.length)
      return `GraphQL HTTP ${res.status} without errors: ${text.slice(0, 200)}`;
    for (const error of body.errors ?? []) {
      const code = String(error.extensions?.code);
      if (!DOCUMENTED_CODES.has(code))
        return `GraphQL error code ${code}: ${String(error.message).slice(0, 200)}`;
      if (typeof error.message !== 'string' || !error.message) return 'GraphQL error without a message';
    }
    return undefined;
  }
  if (res.status < 400) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `HTTP ${res.status} without a JSON envelope: ${text.slice(0, 200)}`;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } }).error;
  if (!error || Object.keys(body as object).length !== 1) return `not an envelope: ${text.slice(0, 200)}`;
  const code = String(error.code);
  if (!DOCUMENTED_CODES.has(code)) return `undocumented code ${code}: ${text.slice(0, 200)}`;
  if (typeof error.message !== 'string' || !error.message) return `envelope without a message: ${text}`;
  if (!statusesOf(code).includes(res.status)) return `code ${code} with HTTP ${res.status}`;
  return undefined;
}

/** Sends `numRuns` generated requests to `target` in sequence; fast-check's seed makes a run repeatable. */
export async function runFuzz(
  target: FuzzTarget,
  options: { numRuns: number; seed: number },
): Promise<FuzzReport> {
  const words = dictionary(target.sessionIds);
  const request = fc.oneof(
    { weight: 14, arbitrary: routeRequest(words) },
    { weight: 2, arbitrary: strayRequest },
    { weight: 4, arbitrary: graphqlRequest },
  );
  const routePaths = new Set(routes.filter((r) => r.path.startsWith('/v1/')).map((r) => r.path));
  const report: FuzzReport = { cases: 0, serverErrors: 0, byStatus: {}, reached: {}, seed: options.seed };
  const property = fc.asyncProperty(request, async (p) => {
    report.cases++;
    const before = await rowCounts(target.app);
    const res = await send(target.http.url, p, target.key, target.operatorToken);
    report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
    if (res.status >= 500) report.serverErrors++;
    const text = await res.text();
    const wrong = judge(p, res, text);
    const path = p.target.split('?')[0]!;
    // FUZZ_TRACE=<path> prints every answer of one route: what the generators make of it.
    if (process.env.FUZZ_TRACE === path)
      console.log(res.status, p.auth, p.contentType, text.slice(0, 150), String(p.body).slice(0, 150));
    if (
      routePaths.has(path) &&
      (res.status === 200 || RESOLVER_CODES.some((c) => text.includes(`"code":"${c}"`)))
    )
      report.reached[path] = (report.reached[path] ?? 0) + 1;
    if (wrong) throw new Error(`${p.method} ${p.target.slice(0, 120)} (${p.auth}): ${wrong}`);
    if (res.status >= 400 && (await rowCounts(target.app)) !== before)
      throw new Error(`${p.method} ${p.target} was refused with ${res.status} but changed a table`);
  });
  const details = await fc.check(property, {
    numRuns: options.numRuns,
    seed: options.seed,
    endOnFailure: true,
  });
  if (details.failed) report.failure = fc.defaultReportMessage(details) ?? 'failed';
  return report;
}
