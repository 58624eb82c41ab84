import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Asset } from './web-assets.ts';

/**
 * What the browser-facing pages share (the hosted page in pages.ts, the console in console.ts): the
 * host their CSP names for WebSocket connections, the CSP itself, and sending a built page or asset.
 */

/** A Host header we are willing to echo into the CSP: a name or address and an optional port. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The host a page's CSP allows WebSocket connections to: the public one, else a well-formed Host header. */
export function cspHost(req: IncomingMessage, publicHost: string | undefined): string | undefined {
  return publicHost ?? (HOST.test(req.headers.host ?? '') ? req.headers.host : undefined);
}

/**
 * A page's Content-Security-Policy: script, style and images from this origin only (no inline, no
 * eval), connections to this origin and its WebSocket; who may frame it and where forms go are the page's.
 */
export function pagePolicy(
  host: string | undefined,
  page: { formAction: "'none'" | "'self'"; frameAncestors: '*' | "'none'" },
): string {
  const ws = host ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${ws}`,
    "base-uri 'none'",
    `form-action ${page.formAction}`,
    `frame-ancestors ${page.frameAncestors}`,
  ].join('; ');
}

/** A 200 with `body` (none for HEAD), never sniffed, never sending a referrer. */
export function sendBody(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  headers: Record<string, string>,
): void {
  res.writeHead(200, {
    ...headers,
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A built asset, gzipped when the client takes it, with `headers` of the page it belongs to. */
export function sendAsset(
  req: IncomingMessage,
  res: ServerResponse,
  asset: Asset,
  cache: string,
  headers: Record<string, string>,
): void {
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  sendBody(req, res, gzip ? asset.gzip : asset.body, {
    'content-type': asset.type,
    'cache-control': cache,
    vary: 'accept-encoding',
    ...headers,
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
}
