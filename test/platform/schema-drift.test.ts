import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONSOLE_TYPES_FILE, renderConsoleTypes } from '../../scripts/console-types.ts';
import { renderSdkTypes, SDK_TYPES_FILE } from '../../scripts/sdk-types.ts';
import { PUBLIC_ERROR_CODES } from '../../src/errors.ts';
import { routes, schema } from '../../src/modules/index.ts';
import { openApiDocument } from '../../src/rest/openapi.ts';
import { renderGraphqlSchema, renderOpenApi, SCHEMA_FILES } from '../../src/rest/schema-files.ts';

// When these fail, run `npm run schema:print` and commit the result with the change that caused it.
it('schema/schema.graphql matches the Pothos schema', () => {
  expect(readFileSync(SCHEMA_FILES.graphql, 'utf8')).toBe(renderGraphqlSchema(schema));
});

it('schema/openapi.json matches the route table', () => {
  expect(readFileSync(SCHEMA_FILES.openapi, 'utf8')).toBe(renderOpenApi(routes));
});

it('sdk/openapi-types.ts is what openapi-typescript generates from the document', async () => {
  expect(readFileSync(SDK_TYPES_FILE, 'utf8')).toBe(await renderSdkTypes());
});

it('web/console/graphql-env.d.ts is what gql.tada generates from schema/schema.graphql', () => {
  expect(readFileSync(CONSOLE_TYPES_FILE, 'utf8')).toBe(renderConsoleTypes());
});

it('the OpenAPI document is 3.1 with version 0.2.0', () => {
  const doc = JSON.parse(renderOpenApi(routes));
  expect(doc.openapi).toBe('3.1.0');
  expect(doc.info.version).toBe('0.2.0');
});

it('descriptions explain in their own words: no citations of documents that are not shipped', () => {
  const citation = /\bsection \d|\bD\d{1,2}\b/i;
  for (const file of ['schema/schema.graphql', 'schema/openapi.json']) {
    const lines = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');
    expect(
      lines.filter((line) => citation.test(line)),
      file,
    ).toEqual([]);
  }
});

describe('the OpenAPI document covers the whole interface', () => {
  type Operation = {
    operationId?: string;
    security?: unknown[];
    responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
  };
  const doc = openApiDocument(routes) as unknown as {
    servers: { url: string }[];
    paths: Record<string, Record<string, Operation>>;
    components: {
      schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } };
      securitySchemes: Record<string, { type: string; in: string; name: string }>;
    };
  };
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
  const find = (method: string, path: string) =>
    operations.find((o) => o.method === method && o.path === path)?.op;

  it('lists every route of the interface (4.1), with its media type', () => {
    for (const [method, path] of INTERFACE_ROUTES)
      expect(find(method, path), `${method} ${path}`).toBeDefined();
    expect(Object.keys(find('GET', '/p/{token}')?.responses[200]?.content ?? {})).toEqual(['text/html']);
    expect(Object.keys(find('GET', '/hpp/sdk.js')?.responses[200]?.content ?? {})).toEqual([
      'application/javascript',
    ]);
  });

  it('names servers and the four signing headers', () => {
    expect(doc.servers.length).toBeGreaterThan(0);
    const headers = Object.values(doc.components.securitySchemes).map((s) => [s.type, s.in, s.name]);
    expect(headers).toEqual(
      ['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature'].map((name) => ['apiKey', 'header', name]),
    );
  });

  it('every operation has a unique operationId and says its security (signed routes all four headers)', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const signed = new Set(routes.filter((r) => r.auth === 'signed').map((r) => `${r.method} ${r.path}`));
    for (const { method, path, op } of operations) {
      expect(op.security, `${method} ${path}`).toEqual(
        signed.has(`${method} ${path}`) ? [{ ApiKey: [], Timestamp: [], Nonce: [], Signature: [] }] : [],
      );
    }
  });

  it('every operation lists the statuses the HTTP layer can answer, each with the envelope', () => {
    for (const { method, path, op } of operations) {
      const expected = path.startsWith('/v1/')
        ? ['405', '408', '413', '415', '431', '500']
        : ['408', '431', '500'];
      if (path.startsWith('/v1/') && find(method, path)?.security?.length) expected.push('401', '503');
      for (const status of expected) {
        expect(
          op.responses[status]?.content?.['application/json']?.schema,
          `${method} ${path} ${status}`,
        ).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('the envelope’s code is an enum of exactly the codes a client can see', () => {
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual([
      ...PUBLIC_ERROR_CODES,
    ]);
    expect(PUBLIC_ERROR_CODES).toContain('validation');
    expect(PUBLIC_ERROR_CODES).not.toContain('payload_too_large');
  });
});

/** Section 4.1 of the interface document: the 20 routes. */
const INTERFACE_ROUTES = [
  ['GET', '/healthz'],
  ['POST', '/v1/cashier/init'],
  ['POST', '/v1/cashier/step'],
  ['POST', '/v1/cashier/status'],
  ['POST', '/v1/hpp/sessions'],
  ['POST', '/v1/hpp/step'],
  ['POST', '/v1/hpp/status'],
  ['GET', '/p/{token}'],
  ['GET', '/hpp/sdk.js'],
  ['POST', '/v1/payouts'],
  ['POST', '/v1/payouts/authorize'],
  ['POST', '/v1/payouts/status'],
  ['POST', '/v1/payouts/approval'],
  ['POST', '/v1/payouts/approval/broadcast'],
  ['POST', '/v1/payouts/approval/status'],
  ['POST', '/v1/payouts/batch'],
  ['POST', '/v1/payouts/batch/authorize'],
  ['POST', '/v1/payouts/batch/status'],
  ['GET', '/v1/balance'],
  ['POST', '/v1/wallet/address'],
] as const;
