import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.ts';
import { CONSOLE_ASSETS_PATH, consoleAssets } from './console-assets.ts';
import type { PageHandler } from './server.ts';
import type { Asset } from './web-assets.ts';

/**
 * The operator console at `/console`: one HTML page for every view's URL (`/console/merchants/…`,
 * the browser's history routes between them) and its assets. It talks to `/graphql`, from this origin
 * (and downloads the settlement report's CSV, `/reports/settlement.csv`, with the same token); it is
 * never framed.
 */

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The console's Content-Security-Policy: script and style from this origin only (no inline, no eval),
 * connections to this origin and its WebSocket, no framing at all.
 */
export function consoleCsp(host: string | undefined): string {
  const ws = host ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self'${ws}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The console's page and assets. Building starts now so the first request is quick. */
export function consolePages(app: App): PageHandler[] {
  consoleAssets().catch((error: unknown) => app.logger.error('building the console failed', { error }));
  const publicHost = app.config.publicBaseUrl ? new URL(app.config.publicBaseUrl).host : undefined;
  return [
    async (req, res, url) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const path = url.pathname;
      if (path.startsWith(CONSOLE_ASSETS_PATH)) {
        const { assets } = await consoleAssets();
        const asset = assets.get(path.slice(CONSOLE_ASSETS_PATH.length));
        if (!asset) return false;
        const immutable = url.searchParams.get('v') === asset.hash;
        sendAsset(req, res, asset, immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        return true;
      }
      if (path !== '/console' && !path.startsWith('/console/')) return false;
      const { html } = await consoleAssets();
      const host = publicHost ?? (HOST.test(req.headers.host ?? '') ? req.headers.host : undefined);
      send(req, res, Buffer.from(html), {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': consoleCsp(host),
        'cache-control': 'no-cache',
      });
      return true;
    },
  ];
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset, cache: string) {
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  send(req, res, gzip ? asset.gzip : asset.body, {
    'content-type': asset.type,
    'cache-control': cache,
    vary: 'accept-encoding',
    'cross-origin-resource-policy': 'same-origin',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
}

function send(req: IncomingMessage, res: ServerResponse, body: Buffer, headers: Record<string, string>) {
  res.writeHead(200, {
    ...headers,
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
