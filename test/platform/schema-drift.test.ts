import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderGraphqlSchema, renderOpenApi, SCHEMA_FILES } from '../../src/rest/schema-files.ts';

// When these fail, run `npm run schema:print` and commit the result with the change that caused it.
it('schema/schema.graphql matches the Pothos schema', () => {
  expect(readFileSync(SCHEMA_FILES.graphql, 'utf8')).toBe(renderGraphqlSchema());
});

it('schema/openapi.json matches the route table', () => {
  expect(readFileSync(SCHEMA_FILES.openapi, 'utf8')).toBe(renderOpenApi());
});

it('the OpenAPI document is 3.1 with version 0.2.0', () => {
  const doc = JSON.parse(renderOpenApi());
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
