import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputIntrospectionFile } from '@gql.tada/internal';
import { buildSchema, introspectionFromSchema } from 'graphql';
import { SCHEMA_FILES } from '../src/rest/schema-files.ts';

/** The console's gql.tada schema types, generated from `schema/schema.graphql`. */
export const CONSOLE_TYPES_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../web/console/graphql-env.d.ts',
);

/**
 * The generated file's text: gql.tada's introspection types of the committed schema, so every console
 * document is typed (and checked by `npm run typecheck`) against the API it runs on.
 * `npm run schema:print` writes it and a test checks it for drift.
 */
export function renderConsoleTypes(sdl = readFileSync(SCHEMA_FILES.graphql, 'utf8')): string {
  const introspection = introspectionFromSchema(buildSchema(sdl), { descriptions: false });
  return outputIntrospectionFile(introspection, { fileType: '.d.ts', shouldPreprocess: true });
}
