import type { ObjectRef } from '@pothos/core';
import type { Page } from '../db/pagination.ts';
import { builder } from './builder.ts';

/** The GraphQL type of a page of `node`s. */
type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer S> ? S : never;

export function pageRef<T>(name: string, node: ObjectRef<Types, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (p) => p.nodes }),
      hasNextPage: t.exposeBoolean('hasNextPage'),
      endCursor: t.exposeString('endCursor', {
        nullable: true,
        description: 'Pass as `after` for the next page.',
      }),
    }),
  });
}
