/**
 * Writes the committed API descriptions: `schema/schema.graphql` (printed from the Pothos schema) and
 * `schema/openapi.json` (generated from the REST route table). A test fails when either drifts.
 * Usage: npm run schema:print
 */
import { writeFileSync } from 'node:fs';
import { renderGraphqlSchema, renderOpenApi, SCHEMA_FILES } from '../src/rest/schema-files.ts';

writeFileSync(SCHEMA_FILES.graphql, renderGraphqlSchema());
writeFileSync(SCHEMA_FILES.openapi, renderOpenApi());
console.log(`wrote ${SCHEMA_FILES.graphql} and ${SCHEMA_FILES.openapi}`);
