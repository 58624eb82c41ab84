import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { App } from '../app.ts';
import type { EntityManager } from '../db/orm.ts';
import { AppError } from '../errors.ts';
import type { Actor, Context } from '../graphql/context.ts';
import { toAppError } from '../graphql/errors.ts';
import { openApiDocument } from '../rest/openapi.ts';
import { parseJsonObject, readBody } from './body.ts';
import { serveGraphiqlAsset } from './graphiql.ts';
import { createGraphqlHandler } from './graphql.ts';
import { createReadiness } from './readiness.ts';
import { sendError, sendJson } from './respond.ts';

/** How often Node checks connections against the header and request timeouts. */
const CONNECTIONS_CHECK_MS = 1_000;
/** Largest WebSocket message: a generous GraphQL document with variables, far below ws' 100 MiB default. */
export const MAX_WS_MESSAGE_BYTES = 64 * 1024;
/** A WebSocket client must send `connection_init` this soon after connecting, or is dropped. */
export const WS_INIT_TIMEOUT_MS = 5_000;

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
  const readiness = createReadiness(app);
  const openapi = JSON.stringify(openApiDocument(app.rest.routes));
  const pages = options.pages ?? [];
  /** The fixed paths, by path (also the only route names metrics report as they are). */
  const fixed: Record<string, (req: IncomingMessage, res: ServerResponse) => unknown> = {
    '/healthz': (_, res) => sendJson(res, 200, { status: 'ok' }),
    '/readyz': (_, res) => ready(res, readiness),
    '/metrics': (req, res) => metrics(app, req, res),
    '/openapi.json': (_, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      res.end(openapi);
    },
    '/graphql': (req, res) => graphql.handle(req, res),
  };

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL | undefined) {
    if (!url) throw new AppError('validation', 'malformed request target');
    const method = req.method ?? 'GET';
    const route = Object.hasOwn(fixed, url.pathname) ? fixed[url.pathname] : undefined;
    if (route) return void (await route(req, res));
    // GraphiQL is off in production (src/http/graphql.ts), and so are its assets.
    if (app.config.env !== 'production' && (await serveGraphiqlAsset(req, res, url))) return;
    if (url.pathname.startsWith('/v1/')) return rest(app, req, res, url, method);
    for (const page of pages) if (await page(req, res, url)) return;
    throw new AppError('not_found', `no route for ${method} ${url.pathname}`);
  }

  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECK_MS }, (req, res) => {
    const started = performance.now();
    // Parsed once, for the route and for the metrics label (undefined: not a URL, a 400).
    const url = requestUrl(req.url ?? '/');
    res.once('finish', () =>
      app.metrics.observeRequest(
        routeName(app, fixed, req.method ?? 'GET', url),
        req.method ?? 'GET',
        res.statusCode,
        (performance.now() - started) / 1000,
      ),
    );
    handle(req, res, url).catch((error: unknown) => {
      const appError = toAppError(error);
      if (appError.code === 'internal') app.logger.error('request failed', { error, url: req.url });
      if (!res.headersSent) sendError(res, appError);
      else res.destroy();
    });
  });
  // Slow clients (a header byte every few seconds, a body that trickles in) are cut off: Node's
  // defaults would hold such a connection for a minute or more.
  server.headersTimeout = app.config.httpHeadersTimeoutMs;
  server.requestTimeout = app.config.httpRequestTimeoutMs;
  // Idle kept-alive connections stay open longer than Node's 5 s (HTTP_KEEP_ALIVE_TIMEOUT_MS).
  server.keepAliveTimeout = app.config.httpKeepAliveTimeoutMs;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket),
  );

  // A key revoked or an allowlist changed by any process (the CLI, another replica) applies here at once.
  const unlisten = await app.services.authenticator.followChanges(app.pubsub);
  // Listen before the WebSocket server exists: ws re-emits the HTTP server's errors (a port in use)
  // and graphql-ws reports those as "Internal error emitted on the WebSocket server", hiding the cause.
  try {
    await listen(server, app.config.port, app.config.host);
  } catch (error) {
    await unlisten();
    throw error;
  }
  const subscriptions = serveSubscriptions(app, server, graphql.wsOptions);
  const { port } = server.address() as AddressInfo;
  app.services.hosted.useListeningAddress(`http://127.0.0.1:${port}`);
  const host = app.config.host === '0.0.0.0' || app.config.host === '::' ? '127.0.0.1' : app.config.host;
  return {
    server,
    url: `http://${host}:${port}`,
    async close() {
      await unlisten();
      await subscriptions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** GraphQL subscriptions over WebSockets on `/graphql` (graphql-ws). */
function serveSubscriptions(
  app: App,
  server: Server,
  wsOptions: ReturnType<typeof createGraphqlHandler>['wsOptions'],
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ server, path: '/graphql', maxPayload: MAX_WS_MESSAGE_BYTES });
  const ws = useServer({ ...wsOptions, connectionInitWaitTimeout: WS_INIT_TIMEOUT_MS }, wss);
  wss.on('connection', (socket) => {
    // A socket error is the client's doing (a frame over maxPayload, a protocol violation); ws has
    // already closed the connection with the matching code (1009, 1002). graphql-ws would print it to
    // the console as an internal error; it is a debug event here.
    socket.removeAllListeners('error');
    socket.on('error', (error) => app.logger.debug('websocket client error', { error: error.message }));
  });
  return {
    async close() {
      await ws.dispose();
      wss.close();
    },
  };
}

/** 200 when the database and a node of every network answer; else 503 naming what does not. */
async function ready(res: ServerResponse, readiness: ReturnType<typeof createReadiness>) {
  const state = await readiness();
  if (state.ready) return sendJson(res, 200, { status: 'ready', ...state });
  const down = [
    ...(state.database === 'ok' ? [] : ['database unreachable']),
    ...Object.entries(state.networks)
      .filter(([, s]) => s !== 'ok')
      .map(([id, s]) => `network ${id}: ${s}`),
  ];
  sendError(res, new AppError('unavailable', `not ready: ${down.join('; ')}`, { ...state }));
}

/** Prometheus text, when the deployment exposes it (METRICS): to an operator token, or to anyone. */
async function metrics(app: App, req: IncomingMessage, res: ServerResponse) {
  if (app.config.metrics === 'off') throw new AppError('not_found', 'no route for GET /metrics');
  if (app.config.metrics === 'token') {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const operator = token ? await app.services.authenticator.operator(app.fork(), token) : undefined;
    if (!operator) throw new AppError('unauthorized', 'metrics need an operator bearer token');
  }
  res.writeHead(200, { 'content-type': app.metrics.registry.contentType });
  res.end(await app.metrics.registry.metrics());
}

/** A request's route for metrics: a fixed set of names, never the raw URL (unbounded labels). */
function routeName(app: App, fixed: Record<string, unknown>, method: string, url: URL | undefined): string {
  if (!url) return 'other';
  if (Object.hasOwn(fixed, url.pathname)) return url.pathname;
  if (url.pathname.startsWith('/assets/')) return '/assets';
  // The hosted page's token never becomes a label.
  if (url.pathname.startsWith('/p/')) return '/p/{token}';
  if (url.pathname === '/hpp/sdk.js') return url.pathname;
  if (url.pathname.startsWith('/hpp/assets/')) return '/hpp/assets';
  if (url.pathname.startsWith('/console/assets/')) return '/console/assets';
  if (url.pathname === '/reports/settlement.csv') return url.pathname;
  // Console views carry ids: one label for all of them.
  if (url.pathname === '/console' || url.pathname.startsWith('/console/')) return '/console';
  const match = url.pathname.startsWith('/v1/') ? app.rest.match(method, url.pathname) : undefined;
  return match && !('allow' in match) ? url.pathname : 'other';
}

/** A `/v1` request: the route, its body, the signed merchant when the route is signed, the operation. */
async function rest(app: App, req: IncomingMessage, res: ServerResponse, url: URL, method: string) {
  const match = app.rest.match(method, url.pathname);
  if (!match) throw new AppError('not_found', `no route for ${method} ${url.pathname}`);
  if ('allow' in match) {
    const error = new AppError('method_not_allowed', `${method} is not allowed on ${url.pathname}`);
    return sendError(res, error, { allow: match.allow.join(', ') });
  }
  requireJsonBody(req, method);
  const raw = await readBody(req);
  if (raw.length > 0 && !req.headers['content-type']) throw notJson(undefined);
  // Forked when first used: the hottest routes (a cached key, the status read) never touch the ORM.
  let forked: EntityManager | undefined;
  const em = () => (forked ??= app.fork());
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
    actor = { kind: 'merchant', merchantId: signed.merchantId, keyId: signed.keyId };
  }
  const body = method === 'GET' ? {} : parseJsonObject(raw);
  const context: Context = {
    get em() {
      return em();
    },
    services: app.services,
    actor,
    clientIp: ip,
  };
  sendJson(res, 200, await app.rest.run(match, body, context));
}

/** Starts listening; a port already in use or not ours to take is one clear error, not a hang. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const where = `${host}:${port}`;
      if (error.code === 'EADDRINUSE')
        reject(
          new ListenError(
            `port ${port} is already in use on ${host}; stop the other process or set PORT`,
            error,
          ),
        );
      else if (error.code === 'EACCES')
        reject(new ListenError(`no permission to listen on ${where}; choose a PORT above 1023`, error));
      else if (error.code === 'EADDRNOTAVAIL')
        reject(new ListenError(`HOST ${host} is not an address of this machine`, error));
      else reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** The HTTP server could not listen; the message names the setting to change. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
  constructor(message: string, cause: NodeJS.ErrnoException) {
    super(message, { cause });
  }
}

/** A request body must be JSON (D2); anything else is refused before it is authenticated or read. */
function requireJsonBody(req: IncomingMessage, method: string) {
  if (method === 'GET') return;
  const type = req.headers['content-type'];
  if (type !== undefined && !isJsonType(type)) throw notJson(type);
}

const isJsonType = (type: string) => /^application\/json\s*(;|$)/i.test(type.trim());

const notJson = (type: string | undefined) =>
  new AppError(
    'unsupported_media_type',
    `request body must be sent as Content-Type: application/json${type ? ` (got ${JSON.stringify(type.slice(0, 100))})` : ''}`,
  );

/**
 * Node's answer to a request it cannot parse or that overran a limit, in the section-7 envelope
 * instead of its bare status line. Nothing is logged: these are the client's doing.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex) {
  const inResponse = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    ?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || inResponse) return void socket.destroy();
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('header_too_large', 'request headers are larger than the server accepts (16 KiB)')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError('request_timeout', 'the request was not received in time')
        : new AppError('validation', 'malformed HTTP request');
  const body = JSON.stringify({ error: { code: refusal.publicCode, message: refusal.message } });
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'cache-control: no-store\r\nconnection: close\r\n\r\n' +
      body,
  );
}

/**
 * The request target as a URL, or undefined when it is none (answered 400). Resolved against a base,
 * a path starting with `//` would be read as a host (`///%F1` throws); the path is kept as sent.
 */
function requestUrl(target: string): URL | undefined {
  try {
    return new URL(target.startsWith('/') ? `http://localhost${target}` : target);
  } catch {
    return undefined;
  }
}
