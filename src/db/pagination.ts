import { validation } from '../errors.ts';

/**
 * Keyset pagination, newest first by (created_at, id): a data concern, shared by every listing
 * (services build pages; the GraphQL layer only describes their type).
 */

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

/** The ORM filter for rows after `cursor` in (created_at desc, id desc) order. */
export function afterCursor(cursor: string): Record<string, unknown> {
  const { createdAt, id } = decodeCursor(cursor);
  return { $or: [{ createdAt: { $lt: createdAt } }, { createdAt, id: { $lt: id } }] };
}
