import { CompiledQuery } from 'kysely';
import { executeBound } from '../../src/db/bulk.ts';
import type { EntityManager } from '../../src/db/orm.ts';

/**
 * Query plans for the tests that hold a statement to a bounded amount of work: what PostgreSQL did,
 * by EXPLAIN (ANALYZE, FORMAT JSON), inside a transaction the caller rolls back.
 */

/** A plan node, as far as the row counts go. */
export interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Join Filter'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/**
 * Every row a plan's nodes produced or looked at and threw away, over all their loops (EXPLAIN gives
 * both per loop).
 */
export const rowsVisited = (node: PlanNode): number =>
  node['Actual Loops'] *
    (node['Actual Rows'] +
      (node['Rows Removed by Join Filter'] ?? 0) +
      (node['Rows Removed by Filter'] ?? 0)) +
  (node.Plans ?? []).reduce((sum, child) => sum + rowsVisited(child), 0);

/** The plan of `sql` run with `params` on `tx` (it runs: roll the transaction back). */
export async function explainAnalyze(
  tx: EntityManager,
  sql: string,
  params: readonly unknown[],
): Promise<PlanNode> {
  const [row] = await executeBound<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    tx,
    `explain (analyze, format json) ${sql}`,
    params,
  );
  return row!['QUERY PLAN'][0]!.Plan;
}

/**
 * The plan of the first statement containing `fragment` that `work` runs on the transaction it is
 * given, whatever builds that statement: it is run under EXPLAIN ANALYZE instead, and `work` is then
 * stopped (the transaction rolls back). For statements built and sent inside the code under test.
 */
export async function planOfStatement(
  em: EntityManager,
  fragment: string,
  work: (tx: EntityManager) => Promise<unknown>,
): Promise<PlanNode> {
  const stop = new Error('plan taken');
  let plan: PlanNode | undefined;
  type Runner = { executeQuery<R>(query: CompiledQuery<R>): Promise<{ rows: readonly R[] }> };
  await em
    .fork()
    .transactional(async (tx) => {
      const context = tx.getTransactionContext<Runner>()!;
      const explaining: Runner = {
        async executeQuery<R>(query: CompiledQuery<R>) {
          if (plan || !query.sql.includes(fragment)) return context.executeQuery(query);
          const explained = CompiledQuery.raw(`explain (analyze, format json) ${query.sql}`, [
            ...query.parameters,
          ]);
          const { rows } = await context.executeQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(explained);
          plan = rows[0]!['QUERY PLAN'][0]!.Plan;
          throw stop;
        },
      };
      const spied = new Proxy(tx, {
        get(target, key) {
          if (key === 'getTransactionContext') return () => explaining;
          const value = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      await work(spied);
      throw new Error(`no statement containing "${fragment}" ran`);
    })
    .catch((error: unknown) => {
      if (error !== stop) throw error;
    });
  return plan!;
}
