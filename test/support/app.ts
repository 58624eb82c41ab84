import { randomBytes } from 'node:crypto';
import { type App, createApp } from '../../src/app.ts';
import type { NetworkFile } from '../../src/chains/networks.ts';
import { networkFileSchema } from '../../src/chains/networks.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type HttpServer, type PageHandler, startHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { OperatorScope } from '../../src/lib/operator-scopes.ts';
import { signedHeaders } from '../../src/modules/auth/request-signing.ts';
import { Merchant } from '../../src/modules/merchant/merchant.entity.ts';
import { createTestDatabase } from './db.ts';

/** A GraphQL response as tests read it; each test's assertions check the shape it relies on. */
export type GraphqlResult = {
  // biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary result shapes
  data?: any;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
};

export interface TestApp {
  app: App;
  http: HttpServer;
  config: Config;
  /** Creates a merchant with one API key; returns ids and the secret. */
  merchant(name?: string): Promise<{ id: string; keyId: string; secret: string }>;
  /**
   * Points a merchant's webhooks at a loopback receiver. The service refuses loopback targets unless
   * the deployment allows private ones (the dev stack does, test apps do not), so this stores it as
   * such a deployment would.
   */
  hookTo(merchantId: string, webhookUrl: string | null): Promise<void>;
  /** An operator bearer token: admin unless other scopes are asked for. */
  operatorToken(scopes?: OperatorScope[]): Promise<string>;
  /** Sends a signed request as the given key. */
  signed(
    key: { keyId: string; secret: string },
    method: string,
    target: string,
    body?: unknown,
    extraHeaders?: Record<string, string>,
  ): Promise<Response>;
  graphql(token: string, query: string, variables?: Record<string, unknown>): Promise<GraphqlResult>;
  close(): Promise<void>;
}

/** A placeholder network file for tests that do not touch a chain. */
export const NO_CHAIN_NETWORKS: NetworkFile = networkFileSchema.parse({
  networks: [{ id: 'eth', kind: 'evm', chainId: 31337, rpcUrls: ['http://127.0.0.1:9'], tokens: [] }],
});

/** The whole service on a fresh database, listening on a free loopback port; no worker unless asked. */
export async function startTestApp(
  options: {
    networks?: NetworkFile;
    env?: Record<string, string>;
    /** Browser-facing routes to mount (the hosted page: `webPages`). */
    pages?: (app: App) => PageHandler[];
  } = {},
): Promise<TestApp> {
  const databaseUrl = await createTestDatabase();
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    NETWORKS_FILE: '(in memory)',
    SECRETS_KEY: randomBytes(32).toString('hex'),
    PORT: '0',
    HOST: '127.0.0.1',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'error',
    ...options.env,
  });
  const app = await createApp({
    config,
    networks: options.networks ?? NO_CHAIN_NETWORKS,
    logger: createLogger('error'),
  });
  const http = await startHttpServer(app, { pages: options.pages?.(app) });
  return {
    app,
    http,
    config,
    async merchant(name = 'Test merchant') {
      const em = app.fork();
      const merchant = await app.services.merchants.create(em, { name });
      const key = await app.services.merchants.issueKey(em, merchant.id);
      return { id: merchant.id, keyId: key.id, secret: key.secret };
    },
    async hookTo(merchantId, webhookUrl) {
      await app.fork().nativeUpdate(Merchant, { id: merchantId }, { webhookUrl });
    },
    async operatorToken(scopes = ['admin']) {
      return (await app.services.operators.createToken(app.fork(), { name: 'test', scopes })).token;
    },
    async signed(key, method, target, body, extraHeaders = {}) {
      const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      const headers = signedHeaders(key.keyId, key.secret, { method, target, body: raw });
      return fetch(`${http.url}${target}`, {
        method,
        headers: { 'content-type': 'application/json', ...headers, ...extraHeaders },
        body: method === 'GET' ? undefined : raw,
      });
    },
    async graphql(token, query, variables) {
      const res = await fetch(`${http.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
      });
      return res.json() as Promise<GraphqlResult>;
    },
    async close() {
      await http.close();
      await app.close();
    },
  };
}
