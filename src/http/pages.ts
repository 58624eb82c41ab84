import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.ts';
import type { PageHandler } from './server.ts';
import { ASSETS_PATH, type Asset, webAssets } from './web-assets.ts';

/**
 * Browser-facing routes next to the API: the hosted payment page `GET /p/{token}` (sections 4.9, D6),
 * its assets under `/hpp/assets/`, and the iframe SDK `GET /hpp/sdk.js` (section 4.10).
 */

const PAGE = /^\/p\/[^/]*$/;
/** A Host header we are willing to echo into the CSP: a name or address and an optional port. */
const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The page's Content-Security-Policy: everything from this origin only, no inline script or style,
 * connections to this origin and its WebSocket, and framable by any origin (D6: it exists to be embedded).
 */
export function pageCsp(host: string | undefined): string {
  const ws = host ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${ws}`,
    "base-uri 'none'",
    "form-action 'none'",
    'frame-ancestors *',
  ].join('; ');
}

/** The hosted page, its assets and the SDK. Building starts now so the first request is quick. */
export function webPages(app: App): PageHandler[] {
  webAssets().catch((error: unknown) => app.logger.error('building the hosted page failed', { error }));
  const publicHost = app.config.publicBaseUrl ? new URL(app.config.publicBaseUrl).host : undefined;

  return [
    async (req, res, url) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const path = url.pathname;
      if (PAGE.test(path)) {
        // 200 for any token (section 4.9): the token is checked by the calls the page makes, and the
        // page says "not found" or "expired" from their answers.
        const { html } = await webAssets();
        const host = publicHost ?? (HOST.test(req.headers.host ?? '') ? req.headers.host : undefined);
        send(req, res, Buffer.from(html), 200, {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': pageCsp(host),
          'referrer-policy': 'no-referrer',
          // The token is in the URL: no cache keeps the page.
          'cache-control': 'no-store',
        });
        return true;
      }
      if (path === '/hpp/sdk.js') {
        const { sdk } = await webAssets();
        sendAsset(req, res, sdk, 'public, max-age=300');
        return true;
      }
      if (path.startsWith(ASSETS_PATH)) {
        const { assets } = await webAssets();
        const asset = assets.get(path.slice(ASSETS_PATH.length));
        if (!asset) return false;
        const immutable = url.searchParams.get('v') === asset.hash;
        sendAsset(req, res, asset, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        return true;
      }
      return false;
    },
  ];
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset, cache: string) {
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  send(req, res, gzip ? asset.gzip : asset.body, 200, {
    'content-type': asset.type,
    'cache-control': cache,
    vary: 'accept-encoding',
    // Merchant pages on other origins load the SDK.
    'cross-origin-resource-policy': 'cross-origin',
    'access-control-allow-origin': '*',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  status: number,
  headers: Record<string, string>,
) {
  res.writeHead(status, {
    ...headers,
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
