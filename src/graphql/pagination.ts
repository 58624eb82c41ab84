import type { InputFieldMap, InputShapeFromFields, ObjectRef } from '@pothos/core';
import { z } from 'zod';
import type { Page } from '../db/pagination.ts';
import { builder } from './builder.ts';
import type { Context } from './context.ts';
import { requireOperator } from './guards.ts';

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

/**
 * An operators-only, newest-first listing field: its own filter arguments, then `first` (1 to `max`,
 * `byDefault` when omitted) and `after`; the operator check, and the service call with the page bounds.
 */
export function operatorListing<Args extends InputFieldMap, T>(
  t: PothosSchemaTypes.QueryFieldBuilder<Types, object>,
  spec: {
    type: ObjectRef<Types, Page<T>>;
    description: string;
    args: Args;
    max: number;
    byDefault: number;
    list(
      ctx: Context,
      args: InputShapeFromFields<Args>,
      first: number,
      after: string | null | undefined,
    ): Promise<Page<T>>;
  },
) {
  return t.field({
    type: spec.type,
    description: spec.description,
    args: {
      ...spec.args,
      first: t.arg.int({ validate: z.number().int().min(1).max(spec.max) }),
      after: t.arg.string(),
    },
    resolve: (_, all, ctx) => {
      requireOperator(ctx);
      // Pothos cannot see through the spread: the page bounds are read back with their own types.
      const { first, after, ...args } = all as { first?: number | null; after?: string | null };
      return spec.list(ctx, args as InputShapeFromFields<Args>, first ?? spec.byDefault, after);
    },
  });
}
