import { CompiledQuery } from 'kysely';
import type { EntityManager } from './orm.ts';

/**
 * The parameters of set-based statements: every row of a block range (a chunk's ledger rows, history
 * rows, webhook events) in one parameter, a JSON document read with `json_to_recordset`, or in one
 * array per column read with `unnest` ({@link columnArrays}: the form for a statement that joins its
 * rows, as the planner then knows their number).
 *
 * `em.execute()` writes its parameters into the SQL text on the client, and quotes a string one
 * character at a time, building a string of as many pieces: for a document of a few thousand rows (a
 * megabyte of webhook bodies) that cost up to a third of a second of CPU and its garbage more, several
 * times the database's own work on the statement. So these statements send the document as a bind
 * parameter instead ({@link executeBound}), and where a statement must stay an `em.execute()` (tests
 * intercept the transition engine's guarded write there) as bytes, which the ORM quotes natively in
 * one call ({@link jsonParam}).
 */

/**
 * Runs `sql` with bind parameters (`$1`, `$2`, …; a JS array becomes a PostgreSQL array, anything
 * else goes as text) on `em`'s transaction when it has one, else on a pooled connection on its own;
 * with the ORM's type parsers, and logged as the ORM logs its own statements (the SQL only), so
 * statement counts include it.
 */
export async function executeBound<T extends object = Record<string, unknown>>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<T[]> {
  const connection = em.getConnection();
  const runner = em.getTransactionContext<{ executeQuery: Runner }>() ?? connection.getClient();
  // The ORM's own wrapper (protected in its types): it times the statement and hands it to the logger.
  const logged = connection as unknown as {
    executeQuery<R>(query: string, run: () => Promise<R>): Promise<R>;
  };
  const result = await logged.executeQuery(sql, () =>
    runner.executeQuery<T>(CompiledQuery.raw(sql, params as unknown[])),
  );
  return [...result.rows];
}

type Runner = <R>(query: CompiledQuery<R>) => Promise<{ rows: readonly R[] }>;

/**
 * The columns of `rows` as arrays, in `keys` order: the parameters of a statement reading its rows
 * with `unnest($1::int[], $2::text[], …)` ({@link executeBound} sends each as a PostgreSQL array). Where
 * a statement joins its rows to others (or to their own inserts), unnest is the form to use: the
 * planner sees how many elements each array holds, where it takes any `json_to_recordset` for 100 rows
 * and may then pick a nested loop that is quadratic in the real count.
 */
export function columnArrays<R, K extends keyof R>(rows: readonly R[], keys: readonly K[]): R[K][][] {
  return keys.map((key) => rows.map((row) => row[key]));
}

/** A JSON document as an `em.execute()` parameter, read in the SQL as {@link JSON_PARAM}. */
export const jsonParam = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

/** The SQL of a {@link jsonParam} placeholder, as `json`. */
export const JSON_PARAM = `convert_from(?::bytea, 'utf8')::json`;
