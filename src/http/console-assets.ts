import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { type Asset, asset } from './web-assets.ts';

/**
 * The operator console (`web/console/`), built like the hosted page: in memory with esbuild on first
 * use, so `npm start` serves it on a fresh clone with no build command and nothing generated is
 * committed. Preact components (JSX), urql with graphql-ws, gql.tada documents and uPlot are bundled
 * into one script; uPlot's stylesheet joins the console's own.
 */

export interface ConsoleAssets {
  /** The single page's HTML with versioned asset URLs filled in. */
  html: string;
  /** By file name under `/console/assets/`. */
  assets: Map<string, Asset>;
}

/** Where the console's assets are served. */
export const CONSOLE_ASSETS_PATH = '/console/assets/';

const WEB = fileURLToPath(new URL('../../web/console/', import.meta.url));
const require = createRequire(import.meta.url);

async function buildConsole(): Promise<ConsoleAssets> {
  const [js, ownCss, chartCss, icon, template] = await Promise.all([
    build({
      entryPoints: [`${WEB}main.tsx`],
      bundle: true,
      minify: true,
      format: 'iife',
      target: ['es2020'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      write: false,
      legalComments: 'none',
      charset: 'utf8',
      logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"production"' },
    }).then((r) => r.outputFiles[0]!.text),
    readFile(`${WEB}console.css`, 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
    readFile(fileURLToPath(new URL('../../web/page/icon.svg', import.meta.url))),
    readFile(`${WEB}index.html`, 'utf8'),
  ]);
  const css = await transform(`${chartCss}\n${ownCss}`, { loader: 'css', minify: true });
  const assets = new Map<string, Asset>([
    ['console.js', asset('text/javascript; charset=utf-8', js)],
    ['console.css', asset('text/css; charset=utf-8', css.code)],
    ['icon.svg', asset('image/svg+xml', icon)],
  ]);
  const url = (name: string) => `${CONSOLE_ASSETS_PATH}${name}?v=${assets.get(name)!.hash}`;
  const html = template
    .replaceAll('{{js}}', url('console.js'))
    .replaceAll('{{css}}', url('console.css'))
    .replaceAll('{{icon}}', url('icon.svg'));
  return { html, assets };
}

let built: Promise<ConsoleAssets> | undefined;

/** The built console; built once per process, on first use. */
export function consoleAssets(): Promise<ConsoleAssets> {
  built ??= buildConsole().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
