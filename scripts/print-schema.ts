/**
 * Writes the committed API descriptions: `schema/schema.graphql` (printed from the Pothos schema) and
 * `schema/openapi.json` (generated from the REST route table), and the SDK's route types generated from
 * the latter (`sdk/openapi-types.ts`), and the console's gql.tada types (`web/console/graphql-env.d.ts`). A test fails when any of them drifts.
 * Usage: npm run schema:print
 */
import { writeFileSync } from 'node:fs';
import { routes, schema } from '../src/modules/index.ts';
import { renderGraphqlSchema, renderOpenApi, SCHEMA_FILES } from '../src/rest/schema-files.ts';
import { CONSOLE_TYPES_FILE, renderConsoleTypes } from './console-types.ts';
import { renderSdkTypes, SDK_TYPES_FILE } from './sdk-types.ts';

writeFileSync(SCHEMA_FILES.graphql, renderGraphqlSchema(schema));
writeFileSync(SCHEMA_FILES.openapi, renderOpenApi(routes));
writeFileSync(SDK_TYPES_FILE, await renderSdkTypes());
writeFileSync(CONSOLE_TYPES_FILE, renderConsoleTypes());
console.log(
  `wrote ${SCHEMA_FILES.graphql}, ${SCHEMA_FILES.openapi}, ${SDK_TYPES_FILE} and ${CONSOLE_TYPES_FILE}`,
);
