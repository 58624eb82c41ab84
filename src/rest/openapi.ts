import { z } from 'zod';
import { toSnake } from '../lib/validation.ts';
import type { RestRoute } from './route.ts';
import { routes } from './routes.ts';

/** The machine-readable description's version string (section 9). */
export const API_VERSION = '0.2.0';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request (`validation`, `unsupported`, `invalid_action`, `insufficient_funds`, `insufficient_allowance`, `tx_reverted`)',
  401: 'Signing headers failed (`unauthorized`)',
  403: 'Caller IP not allowlisted or wrong wallet signer (`forbidden`)',
  404: 'No such resource for this merchant (`not_found`)',
  405: 'Known path, wrong method (`validation`, with an `Allow` header)',
  409: 'Conflicting reuse of an idempotency key (`conflict`)',
  410: 'Link or order deadline passed (`expired`)',
  413: 'Body over 1 MiB (`validation`)',
  500: 'Unexpected failure (`internal`)',
  503: 'A dependency is degraded (`unavailable`); retry with backoff',
};

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
        code: { type: 'string' },
        message: { type: 'string' },
        details: {
          type: 'object',
          description: 'For insufficient_* errors: required, available, token, owner, spender.',
        },
      },
    },
  },
};

function operation(route: RestRoute) {
  const responses: Record<string, unknown> = {
    200: { description: 'OK', content: { 'application/json': { schema: restSchema(route.response) } } },
  };
  for (const status of [...route.errors].sort()) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: route.tags,
    ...(route.auth === 'signed'
      ? { security: [{ ApiKey: [], Timestamp: [], Nonce: [], Signature: [] }] }
      : {}),
    ...(route.request
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: restSchema(route.request) } },
          },
        }
      : {}),
    responses,
  };
}

/** OpenAPI 3.1 document of every `/v1` route, generated from the route table's zod schemas. */
export function openApiDocument(table: RestRoute[] = routes) {
  const paths: Record<string, Record<string, unknown>> = {
    '/healthz': { get: { summary: 'Liveness', tags: ['system'], responses: { 200: { description: 'OK' } } } },
    '/readyz': {
      get: {
        summary: 'Readiness: the database answers',
        tags: ['system'],
        responses: { 200: { description: 'Ready' }, 503: { description: 'Not ready' } },
      },
    },
  };
  for (const route of [...table].sort((a, b) => a.path.localeCompare(b.path))) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Crypto payment gateway',
      version: API_VERSION,
      description:
        'Signed requests: canonical = METHOD\\nPATH?QUERY\\nTIMESTAMP\\nNONCE\\nSHA256_HEX(BODY); X-Signature = hex HMAC-SHA256(secret, canonical).',
    },
    paths,
    components: {
      schemas: { Error: errorEnvelope },
      securitySchemes: {
        ApiKey: header('X-Api-Key', 'API key id'),
        Timestamp: header('X-Timestamp', 'Unix time in seconds, within 300 s of server time'),
        Nonce: header('X-Nonce', '8-128 characters of [A-Za-z0-9._~-], single use within 15 minutes'),
        Signature: header('X-Signature', 'Lowercase hex HMAC-SHA256 of the canonical request'),
      },
    },
  };
}
