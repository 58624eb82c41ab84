import { z } from 'zod';
import { PUBLIC_ERROR_CODES } from '../errors.ts';
import { toSnake } from '../lib/validation.ts';
import type { RestRoute } from './route.ts';

/** The machine-readable description's version string (section 9). */
export const API_VERSION = '0.2.0';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`)',
  401: 'Signing headers failed (`unauthorized`); rebuild the request with a new timestamp, nonce and signature',
  403: 'Caller IP not allowlisted or wrong wallet signer (`forbidden`)',
  404: 'No such resource for this merchant (`not_found`)',
  405: 'Known path, wrong method (`validation`, with an `Allow` header)',
  408: 'The request headers or body arrived too slowly (`validation`)',
  409: 'Conflicting reuse of an idempotency key (`conflict`)',
  410: 'Link or order deadline passed (`expired`)',
  413: 'Body over 1 MiB (`validation`)',
  415: 'Body not sent as `Content-Type: application/json` (`validation`)',
  431: 'Request headers too large (`validation`)',
  500: 'Unexpected failure (`internal`)',
  503: 'A dependency is degraded (`unavailable`); retry with backoff, a fresh timestamp, nonce and signature',
};

/** Statuses any request can get from the HTTP layer, whatever its route. */
const TRANSPORT_ERRORS = [408, 431, 500];
/** Statuses of every `/v1` route besides its own: wrong method, body too large or not JSON. */
const V1_ERRORS = [405, 413, 415, ...TRANSPORT_ERRORS];

/** The four headers of a signed request, one security scheme each (a signed route needs all four). */
const SIGNED = [{ ApiKey: [], Timestamp: [], Nonce: [], Signature: [] }];

/** JSON Schema of a zod schema with object keys in REST spelling (snake_case). */
function restSchema(schema: z.ZodType): unknown {
  return snakeProperties(
    z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' }),
  );
}

function snakeProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(snakeProperties);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [toSnake(k), snakeProperties(v)]));
    } else if (key === 'required' && Array.isArray(value)) {
      out[key] = value.map((k) => toSnake(String(k)));
    } else if (key !== '$schema') {
      out[key] = snakeProperties(value);
    }
  }
  return out;
}

const errorEnvelope = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: PUBLIC_ERROR_CODES,
          description:
            'Stable error code; the HTTP status says the rest (405, 408, 413, 415 and 431 are `validation`).',
        },
        message: { type: 'string' },
        details: {
          type: 'object',
          description: 'For insufficient_* errors: required, available, token, owner, spender.',
        },
      },
    },
  },
};

/** `post /v1/payouts/batch/status` → `postPayoutsBatchStatus`: stable, unique and readable. */
export function operationId(method: string, path: string): string {
  const words = path
    .replace(/^\/v1\//, '/')
    .split(/[/_.{}-]+/)
    .filter(Boolean);
  return method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function errorResponses(statuses: number[]): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const status of [...new Set(statuses)].sort()) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

function operation(route: RestRoute) {
  const signed = route.auth === 'signed';
  return {
    operationId: operationId(route.method, route.path),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    security: signed ? SIGNED : [],
    ...(route.request
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: restSchema(route.request) } },
          },
        }
      : {}),
    responses: {
      200: { description: 'OK', content: { 'application/json': { schema: restSchema(route.response) } } },
      ...errorResponses([...route.errors, ...(signed ? [401, 503] : []), ...V1_ERRORS]),
    },
  };
}

/** A route outside `/v1` answering a fixed media type. */
function plain(
  path: string,
  summary: string,
  ok: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  errors: number[] = [],
) {
  return {
    get: {
      operationId: operationId('get', path),
      summary,
      tags: ['system'],
      security: [],
      ...extra,
      responses: { 200: ok, ...errorResponses([...errors, ...TRANSPORT_ERRORS]) },
    },
  };
}

const SIGNING_DESCRIPTION =
  'Signed requests carry four headers: X-Api-Key (the key id), X-Timestamp (Unix seconds, within 300 s of ' +
  'server time), X-Nonce (8 to 128 characters of [A-Za-z0-9._~-], used once within 15 minutes) and ' +
  'X-Signature = lowercase hex HMAC-SHA256(API secret, canonical), where canonical = METHOD + "\\n" + ' +
  'PATH?QUERY + "\\n" + TIMESTAMP + "\\n" + NONCE + "\\n" + lowercase hex SHA-256(raw body) (of the empty ' +
  'string when there is no body). A retry is a new request: new timestamp, nonce and signature.';

/** OpenAPI 3.1 document of every route, generated from the route table's zod schemas. */
export function openApiDocument(table: readonly RestRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {
    '/healthz': plain('/healthz', 'Liveness', {
      description: 'OK',
      content: {
        'application/json': {
          schema: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
        },
      },
    }),
    '/readyz': plain(
      '/readyz',
      'Readiness: the database and a node of every network answer',
      {
        description: 'Ready',
        content: {
          'application/json': { schema: { type: 'object', properties: { status: { const: 'ready' } } } },
        },
      },
      {},
      [503],
    ),
    '/p/{token}': plain(
      '/p/{token}',
      'The hosted payment page',
      { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
      {
        description:
          'Renders for any token with 200; the token is checked by the calls the page makes, and ' +
          'the page says when a link names no session or has expired.',
        parameters: [
          {
            name: 'token',
            in: 'path',
            required: true,
            description: 'The one-time token of the hosted link.',
            schema: { type: 'string' },
          },
        ],
      },
    ),
    '/hpp/sdk.js': plain(
      '/hpp/sdk.js',
      'The iframe SDK: a global CryptoCashier with open({url, onCompleted, onFailed, onClose})',
      {
        description: 'The script',
        content: { 'application/javascript': { schema: { type: 'string' } } },
      },
    ),
  };
  for (const route of [...table].sort((a, b) => a.path.localeCompare(b.path))) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });
  return {
    openapi: '3.1.0',
    info: { title: 'Crypto payment gateway', version: API_VERSION, description: SIGNING_DESCRIPTION },
    servers: [
      {
        url: 'http://localhost:8080',
        description:
          'The local stack (its address is in DATA_DIR/devstack.json); in production PUBLIC_BASE_URL',
      },
    ],
    paths,
    components: {
      schemas: { Error: errorEnvelope },
      securitySchemes: {
        ApiKey: header('X-Api-Key', `API key id. ${SIGNING_DESCRIPTION}`),
        Timestamp: header('X-Timestamp', 'Unix time in seconds, within 300 s of server time'),
        Nonce: header('X-Nonce', '8-128 characters of [A-Za-z0-9._~-], single use within 15 minutes'),
        Signature: header('X-Signature', 'Lowercase hex HMAC-SHA256 of the canonical request'),
      },
    },
  };
}
