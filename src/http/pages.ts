import type { App } from '../app.ts';
import type { PageHandler } from './server.ts';
import { cspHost, pagePolicy, sendAsset, sendBody } from './static.ts';
import { ASSETS_PATH, webAssets } from './web-assets.ts';

/**
 * Browser-facing routes next to the API: the hosted payment page `GET /p/{token}` (sections 4.9, D6),
 * its assets under `/hpp/assets/`, and the iframe SDK `GET /hpp/sdk.js` (section 4.10).
 */

const PAGE = /^\/p\/[^/]*$/;
/**
 * The page's Content-Security-Policy: framable by any origin (D6: it exists to be embedded), no form
 * posts anywhere.
 */
export function pageCsp(host: string | undefined): string {
  return pagePolicy(host, { formAction: "'none'", frameAncestors: '*' });
}

/** The SDK and the page's assets: merchant pages on other origins load them. */
const CROSS_ORIGIN = { 'cross-origin-resource-policy': 'cross-origin', 'access-control-allow-origin': '*' };

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
        sendBody(req, res, Buffer.from(html), {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': pageCsp(cspHost(req, publicHost)),
          // The token is in the URL: no cache keeps the page.
          'cache-control': 'no-store',
        });
        return true;
      }
      if (path === '/hpp/sdk.js') {
        const { sdk } = await webAssets();
        sendAsset(req, res, sdk, 'public, max-age=300', CROSS_ORIGIN);
        return true;
      }
      if (path.startsWith(ASSETS_PATH)) {
        const { assets } = await webAssets();
        const asset = assets.get(path.slice(ASSETS_PATH.length));
        if (!asset) return false;
        const immutable = url.searchParams.get('v') === asset.hash;
        sendAsset(
          req,
          res,
          asset,
          immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
          CROSS_ORIGIN,
        );
        return true;
      }
      return false;
    },
  ];
}
