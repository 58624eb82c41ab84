import type { ObjectRef } from '@pothos/core';
import { validation } from '../errors.ts';
import { builder } from './builder.ts';

/** One page of a newest-first listing, keyset-paginated by (created_at, id). */
export interface Page<T> {
  nodes: T[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** The opaque cursor of a row: its creation time and id. */
export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url');
}

/** Reverses encodeCursor; anything else is a `validation` error naming `after`. */
export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    const createdAt = new Date(String(at));
    if (typeof id !== 'string' || !id || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw validation('after: not a cursor from this listing');
  }
}

/** Builds a page from `limit + 1` rows fetched newest first. */
export function pageOf<T extends { createdAt: Date; id: string }>(rows: T[], limit: number): Page<T> {
  const nodes = rows.slice(0, limit);
  const last = nodes.at(-1);
  return { nodes, hasNextPage: rows.length > limit, endCursor: last ? encodeCursor(last) : null };
}

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

/** The ORM filter for rows after `cursor` in (created_at desc, id desc) order. */
export function afterCursor(cursor: string): Record<string, unknown> {
  const { createdAt, id } = decodeCursor(cursor);
  return { $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lt: id } }] };
}
