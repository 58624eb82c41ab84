import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { GraphiQLOptions } from 'graphql-yoga';

/**
 * GraphiQL for operators, served entirely by the service: the page, its script, styles and editor
 * workers come from the installed `@graphql-yoga/render-graphiql` package (yoga's default pulls them
 * from a CDN, so the console was blank offline and could not run under a strict CSP). The page has
 * no inline script; its options travel in a JSON data block.
 */

/** Where the assets are served; versioned URLs, so a browser may cache them. */
export const GRAPHIQL_ASSETS = '/assets/graphiql/';

const VERSION: string = createRequire(import.meta.url)('@graphql-yoga/render-graphiql/package.json').version;

/**
 * Content-Security-Policy of the GraphiQL page: scripts, workers and connections only from this
 * origin. Styles allow inline because the editor (Monaco) and GraphiQL insert style elements at run time.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Runs before the GraphiQL bundle: Monaco loads its workers from this origin instead of blobs. */
const ENV_JS = `(function () {
  var base = document.currentScript.src.replace(/[^/]*$/, '');
  var version = '?v=' + ${JSON.stringify(VERSION)};
  var workers = {
    editorWorkerService: base + 'editor.worker.js' + version,
    json: base + 'json.worker.js' + version,
    graphql: base + 'graphql.worker.js' + version,
  };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return workers[label] || workers.editorWorkerService; },
  };
})();
`;

/** Runs after the bundle: renders with the options of the page's JSON data block. */
const START_JS = `YogaGraphiQL.renderYogaGraphiQL(
  document.getElementById('root'),
  JSON.parse(document.getElementById('graphiql-options').textContent)
);
`;

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');
/** The 9 MB bundle is loaded on first use, not at start-up. */
let bundle: Promise<Bundle> | undefined;
const loadBundle = () => {
  bundle ??= import('@graphql-yoga/render-graphiql/graphiql');
  return bundle;
};

/** By file name under GRAPHIQL_ASSETS. A Map, so a name such as `__proto__` or `constructor` is no asset. */
const ASSETS = new Map<string, { type: string; body: (b: Bundle) => string }>([
  ['env.js', { type: 'text/javascript', body: () => ENV_JS }],
  ['start.js', { type: 'text/javascript', body: () => START_JS }],
  ['graphiql.js', { type: 'text/javascript', body: (b) => b.js }],
  ['graphiql.css', { type: 'text/css', body: (b) => b.css }],
  ['editor.worker.js', { type: 'text/javascript', body: (b) => b.editorWorkerService }],
  ['json.worker.js', { type: 'text/javascript', body: (b) => b.jsonWorker }],
  ['graphql.worker.js', { type: 'text/javascript', body: (b) => b.graphqlWorker }],
  ['favicon.ico', { type: 'image/x-icon', body: (b) => b.favicon }],
]);

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The GraphiQL page (yoga's `renderGraphiQL` option); served with GRAPHIQL_CSP. */
export function renderGraphiQL(options: GraphiQLOptions): string {
  const asset = (name: string) => `${GRAPHIQL_ASSETS}${name}?v=${VERSION}`;
  // `<` is escaped so the data block cannot end its own script element.
  const data = JSON.stringify(options ?? {}).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(options?.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${asset('favicon.ico')}" />
    <link rel="stylesheet" href="${asset('graphiql.css')}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run GraphiQL.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${data}</script>
    <script src="${asset('env.js')}"></script>
    <script src="${asset('graphiql.js')}"></script>
    <script src="${asset('start.js')}"></script>
  </body>
</html>
`;
}

/** Serves a GraphiQL asset; false when `url` is not one. */
export async function serveGraphiqlAsset(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  if (!url.pathname.startsWith(GRAPHIQL_ASSETS) || (req.method !== 'GET' && req.method !== 'HEAD'))
    return false;
  const asset = ASSETS.get(url.pathname.slice(GRAPHIQL_ASSETS.length));
  if (!asset) return false;
  const text = asset.body(await loadBundle());
  const body =
    asset.type === 'image/x-icon' ? Buffer.from(text.replace(/^data:[^,]*base64,/, ''), 'base64') : text;
  res.writeHead(200, {
    'content-type': asset.type.startsWith('text/') ? `${asset.type}; charset=utf-8` : asset.type,
    'content-length': Buffer.byteLength(body),
    'cache-control':
      url.searchParams.get('v') === VERSION ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}
