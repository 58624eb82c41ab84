import type { App } from '../app.ts';
import { CONSOLE_ASSETS_PATH, consoleAssets } from './console-assets.ts';
import type { PageHandler } from './server.ts';
import { cspHost, pagePolicy, sendAsset, sendBody } from './static.ts';

/**
 * The operator console at `/console`: one HTML page for every view's URL (`/console/merchants/…`,
 * the browser's history routes between them) and its assets. It talks to `/graphql`, from this origin
 * (and downloads the settlement report's CSV, `/reports/settlement.csv`, with the same token); it is
 * never framed.
 */

/** The console's Content-Security-Policy: never framed, forms post to this origin only. */
export function consoleCsp(host: string | undefined): string {
  return pagePolicy(host, { formAction: "'self'", frameAncestors: "'none'" });
}

/** Every console response: never framed, its assets for this origin only. */
const CONSOLE_HEADERS = { 'x-frame-options': 'DENY' };

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
        sendAsset(req, res, asset, immutable ? 'public, max-age=31536000, immutable' : 'no-cache', {
          ...CONSOLE_HEADERS,
          'cross-origin-resource-policy': 'same-origin',
        });
        return true;
      }
      if (path !== '/console' && !path.startsWith('/console/')) return false;
      const { html } = await consoleAssets();
      sendBody(req, res, Buffer.from(html), {
        ...CONSOLE_HEADERS,
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': consoleCsp(cspHost(req, publicHost)),
        'cache-control': 'no-cache',
      });
      return true;
    },
  ];
}
