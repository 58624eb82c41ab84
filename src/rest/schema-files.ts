import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { openApiDocument } from './openapi.ts';
import type { RestRoute } from './route.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the generated API descriptions are committed. */
export const SCHEMA_FILES = {
  graphql: path.join(root, 'schema/schema.graphql'),
  openapi: path.join(root, 'schema/openapi.json'),
};

export const renderGraphqlSchema = (schema: GraphQLSchema): string =>
  `${printSchema(lexicographicSortSchema(schema))}\n`;
export const renderOpenApi = (routes: readonly RestRoute[]): string =>
  `${JSON.stringify(openApiDocument(routes), null, 2)}\n`;
