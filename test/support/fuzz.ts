/**
 * The HTTP fuzzer of issue #11: seeded, reproducible requests (fuzz-requests.ts) against the real
 * server; most are validly signed so they reach the resolvers. Every answer must be below 500, every
 * error the section-7 envelope with a documented code (GraphQL: a documented `extensions.code`), and
 * a refused request must leave no row behind.
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
import { routes } from '../../src/modules/index.ts';
import { exampleRequests, type Plan, requestArbitrary } from './fuzz-requests.ts';

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
  'payouts',
  'relay_requests',
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
  const operatorToken = (
    await app.services.operators.createToken(app.fork(), { name: 'fuzz', scopes: ['admin'] })
  ).token;
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
  // fetch sends no body with GET or HEAD: what is signed must be what is sent.
  const bodiless = p.method === 'GET' || p.method === 'HEAD';
  const bytes =
    p.body === undefined || bodiless
      ? new Uint8Array()
      : typeof p.body === 'string'
        ? Buffer.from(p.body)
        : p.body;
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
    body: bodiless ? undefined : (bytes as Uint8Array<ArrayBuffer>),
    redirect: 'manual',
  });
}

// ---- the run ----------------------------------------------------------------------------------

export interface FuzzReport {
  /** Generated requests sent (the documented examples sent first are counted in `examples`). */
  cases: number;
  examples: number;
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
  // Readiness takes no input: its 503 is the honest answer of a service whose (deliberately
  // unreachable) chain node does not answer, and must still be the envelope.
  const notReady = p.target.startsWith('/readyz') && res.status === 503 && /"code":"unavailable"/.test(text);
  if (res.status >= 500 && !notReady) return `HTTP ${res.status}: ${text.slice(0, 300)}`;
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
  const request = requestArbitrary(target.sessionIds);
  const routePaths = new Set(routes.filter((r) => r.path.startsWith('/v1/')).map((r) => r.path));
  const report: FuzzReport = {
    cases: 0,
    examples: 0,
    serverErrors: 0,
    byStatus: {},
    reached: {},
    seed: options.seed,
  };
  const probe = async (p: Plan, example = false) => {
    if (example) report.examples++;
    else report.cases++;
    const before = await rowCounts(target.app);
    const res = await send(target.http.url, p, target.key, target.operatorToken);
    report.byStatus[res.status] = (report.byStatus[res.status] ?? 0) + 1;
    if (res.status >= 500 && !(p.target.startsWith('/readyz') && res.status === 503)) report.serverErrors++;
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
  };
  // Every route once with its documented example, then what the seed draws.
  for (const p of exampleRequests()) await probe(p, true);
  const property = fc.asyncProperty(request, (p) => probe(p));
  const details = await fc.check(property, {
    numRuns: options.numRuns,
    seed: options.seed,
    endOnFailure: true,
  });
  if (details.failed) report.failure = fc.defaultReportMessage(details) ?? 'failed';
  return report;
}
