import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

/**
 * `graphql()` of the console: every document is typed against `schema/schema.graphql` (gql.tada reads
 * the generated introspection types), so a field the API does not have fails `npm run typecheck`.
 * DateTime is an ISO string; amounts are decimal strings and stay so.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; JSON: unknown; ID: string };
}>();

export type { FragmentOf, ResultOf, VariablesOf } from 'gql.tada';
