import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { App } from '../app.ts';
import { AppError } from '../errors.ts';
import type { Actor, Context } from '../graphql/context.ts';
import { toAppError } from '../graphql/errors.ts';
import { credentialsChanged } from '../modules/auth/credentials.ts';
import { openApiDocument } from '../rest/openapi.ts';
import { parseJsonObject, readBody } from './body.ts';
import { createGraphqlHandler } from './graphql.ts';
import { sendError, sendJson } from './respond.ts';

/** Extra handlers mounted by later modules (hosted page, SDK), tried before the 404. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean> | boolean;

export interface HttpServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** The client address: the socket peer, or with TRUST_PROXY the address our proxy appended last. */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string | undefined {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress;
}

/** Starts the HTTP server: REST `/v1`, `/graphql` (+ WebSocket subscriptions), health and docs. */
export async function startHttpServer(
  app: App,
  options: { pages?: PageHandler[] } = {},
): Promise<HttpServer> {
  const graphql = createGraphqlHandler(app);
  const openapi = JSON.stringify(openApiDocument());
  const pages = options.pages ?? [];

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const appError = toAppError(error);
      if (appError.code === 'internal') app.logger.error('request failed', { error, url: req.url });
      if (!res.headersSent) sendError(res, appError);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/readyz') return ready(res);
    if (url.pathname === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      return void res.end(openapi);
    }
    if (url.pathname === '/graphql') return graphql.handle(req, res);
    if (url.pathname.startsWith('/v1/')) return rest(req, res, url, method);
    for (const page of pages) if (await page(req, res, url)) return;
    throw new AppError('not_found', `no route for ${method} ${url.pathname}`);
  }

  async function ready(res: ServerResponse) {
    try {
      await app.orm.em.getConnection().execute('select 1');
      sendJson(res, 200, { status: 'ready' });
    } catch {
      sendError(res, new AppError('unavailable', 'database unreachable'));
    }
  }

  async function rest(req: IncomingMessage, res: ServerResponse, url: URL, method: string) {
    const match = app.rest.match(method, url.pathname);
    if (!match) throw new AppError('not_found', `no route for ${method} ${url.pathname}`);
    if ('allow' in match) {
      return sendError(
        res,
        new AppError('method_not_allowed', `${method} is not allowed on ${url.pathname}`),
        {
          allow: match.allow.join(', '),
        },
      );
    }
    const raw = await readBody(req);
    const em = app.fork();
    const ip = clientIp(req, app.config.trustProxy);
    let actor: Actor = { kind: 'anonymous' };
    if (match.route.auth === 'signed') {
      const signed = await app.services.authenticator.verify(em, {
        method,
        target: req.url ?? url.pathname,
        headers: req.headers,
        body: raw,
        clientIp: ip,
      });
      actor = { kind: 'merchant', ...signed };
    }
    const body = method === 'GET' ? {} : parseJsonObject(raw);
    const context: Context = { em, services: app.services, actor, clientIp: ip };
    const result = await app.rest.run(match, body, context);
    sendJson(res, 200, result);
  }

  // A key revoked or an allowlist changed by any process (the CLI, another replica) applies here at once.
  const unlisten = await app.pubsub.on(credentialsChanged, ({ merchantId }) =>
    app.services.authenticator.forgetMerchant(merchantId),
  );

  const wss = new WebSocketServer({ server, path: '/graphql' });
  const ws = useServer(graphql.wsOptions, wss);

  await new Promise<void>((resolve) => server.listen(app.config.port, app.config.host, resolve));
  const { port } = server.address() as AddressInfo;
  const host = app.config.host === '0.0.0.0' || app.config.host === '::' ? '127.0.0.1' : app.config.host;
  return {
    server,
    url: `http://${host}:${port}`,
    async close() {
      await unlisten();
      await ws.dispose();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
