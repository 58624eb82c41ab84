import type { EntityName, FilterQuery, Loaded, OrderDefinition, Populate } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
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

/**
 * The equality filters of a listing: each of `values` that is set (neither null, undefined nor empty),
 * under its key. `{ merchant: filter.merchantId, status: filter.status }` with only a status gives
 * `{ status }`.
 */
export function setFilters(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value));
}

/**
 * One page of a newest-first listing of `entity`: the rows matching `where` after the `after` cursor,
 * ordered by (created_at desc, id desc), `first` of them (one more is read to tell whether a next page
 * exists), `populate` loaded. `first` is taken as given: callers bound it.
 */
export async function findPage<T extends { createdAt: Date; id: string }, Hint extends string = never>(
  em: EntityManager,
  entity: EntityName<T>,
  where: Record<string, unknown>,
  page: { first: number; after?: string | null | undefined },
  populate?: Populate<T, Hint>,
): Promise<Page<Loaded<T, Hint>>> {
  const conditions = page.after ? { $and: [where, afterCursor(page.after)] } : where;
  const rows = await em.find<T, Hint>(entity, conditions as FilterQuery<T>, {
    orderBy: { createdAt: 'desc', id: 'desc' } as OrderDefinition<T>,
    limit: page.first + 1,
    ...(populate ? { populate } : {}),
  });
  return pageOf(rows, page.first);
}

/**
 * The `where` of an operators' listing: its equality filters ({@link setFilters}), `created_at` within
 * [createdAfter, createdBefore) when either is given, and for a search term (trimmed) any of the
 * conditions `search` gives for it as typed and in lowercase (wallets and hashes are stored
 * lowercase; ids and merchants' references as given).
 */
export function listingWhere(
  equal: Record<string, unknown>,
  filter: { createdAfter?: Date | null; createdBefore?: Date | null; search?: string | null },
  search: (term: string, lower: string) => Record<string, unknown>[],
): Record<string, unknown> {
  const where = setFilters(equal);
  const created = setFilters({ $gte: filter.createdAfter, $lt: filter.createdBefore });
  if (Object.keys(created).length) where.createdAt = created;
  const term = filter.search?.trim();
  if (term) where.$or = search(term, term.toLowerCase());
  return where;
}
