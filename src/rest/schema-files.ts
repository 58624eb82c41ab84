import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../graphql/schema.ts';
import { openApiDocument } from './openapi.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where the generated API descriptions are committed. */
export const SCHEMA_FILES = {
  graphql: path.join(root, 'schema/schema.graphql'),
  openapi: path.join(root, 'schema/openapi.json'),
};

export const renderGraphqlSchema = (): string => `${printSchema(lexicographicSortSchema(schema))}\n`;
export const renderOpenApi = (): string => `${JSON.stringify(openApiDocument(), null, 2)}\n`;
