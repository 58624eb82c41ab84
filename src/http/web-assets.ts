import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, transform } from 'esbuild';

/**
 * The hosted page and the SDK, built from `web/` in memory with esbuild when the server first needs
 * them (tens of milliseconds), so `npm start` and `npm test` work on a fresh clone with no build step
 * and nothing generated is committed. Each asset is kept with its gzip and a content hash for
 * versioned, immutable URLs.
 */

export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  /** First 12 hex characters of the body's SHA-256. */
  hash: string;
}

export interface WebAssets {
  /** The page's HTML with versioned asset URLs filled in. */
  html: string;
  /** By file name under `/hpp/assets/`. */
  assets: Map<string, Asset>;
  sdk: Asset;
}

/** Where the page's assets are served. */
export const ASSETS_PATH = '/hpp/assets/';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));

/** An asset with its gzip and content hash. */
export function asset(type: string, body: string | Buffer): Asset {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return {
    type,
    body: buffer,
    gzip: gzipSync(buffer, { level: 9 }),
    hash: createHash('sha256').update(buffer).digest('hex').slice(0, 12),
  };
}

async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [`${WEB}${entry}`],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    write: false,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

async function buildAll(): Promise<WebAssets> {
  const [pageJs, sdkJs, css, icon, template] = await Promise.all([
    bundle('page/main.ts'),
    bundle('sdk/sdk.ts'),
    readFile(`${WEB}page/page.css`, 'utf8').then((text) => transform(text, { loader: 'css', minify: true })),
    readFile(`${WEB}page/icon.svg`),
    readFile(`${WEB}page/index.html`, 'utf8'),
  ]);
  const assets = new Map<string, Asset>([
    ['page.js', asset('text/javascript; charset=utf-8', pageJs)],
    ['page.css', asset('text/css; charset=utf-8', css.code)],
    ['icon.svg', asset('image/svg+xml', icon)],
  ]);
  const url = (name: string) => `${ASSETS_PATH}${name}?v=${assets.get(name)!.hash}`;
  const html = template
    .replaceAll('{{js}}', url('page.js'))
    .replaceAll('{{css}}', url('page.css'))
    .replaceAll('{{icon}}', url('icon.svg'));
  return { html, assets, sdk: asset('text/javascript; charset=utf-8', sdkJs) };
}

let built: Promise<WebAssets> | undefined;

/** The built page and SDK; built once per process, on first use. */
export function webAssets(): Promise<WebAssets> {
  built ??= buildAll().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
