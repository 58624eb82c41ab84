import type { EvmLog } from '../../src/chains/evm/index.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import type { Consumer, TickContext } from '../../src/followers/types.ts';
import type { TestApp } from '../support/app.ts';
import { countingStatements } from '../support/db.ts';

/** A header at `number` (hash derived from it), as the follower hands a consumer. */
export const header = (number: number) => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${'0'.repeat(64)}`,
  timestamp: 1_000 + number,
});

/** A log of none of the stream's contracts: a block with logs, whatever they are. */
export const foreignLog = (blockNumber: number) =>
  ({ address: `0x${'9'.repeat(40)}`, topics: [], data: '0x', blockNumber }) as unknown as EvmLog;

/**
 * Drives a router stream's consumer as the follower does, finality five blocks behind: `block` is the
 * block transaction at `to` (a block event, then finality) and answers how many statements the
 * handler ran; `afterTick` is the pass after a committed tick with the stream's cursor at `at`.
 */
export function routerStream(t: () => TestApp, consumer: Consumer) {
  return {
    block: (to: number, logs: EvmLog[] = []): Promise<number> =>
      t()
        .app.fork()
        .transactional(async (tx) => {
          const { em, count } = countingStatements(tx);
          const head = header(to);
          await consumer.handle(em, { type: 'block', from: to, to: head, logs, head, finalized: to - 5 });
          await consumer.handle(em, { type: 'finalize', block: to - 5 });
          return count();
        }),
    afterTick: (at: number) =>
      consumer.afterTick!({
        head: header(at),
        finalized: at - 5,
        cursor: header(at),
        evidence: async () => header(at - 5),
        transaction: <T>(work: (tx: EntityManager) => Promise<T>) => t().app.fork().transactional(work),
        read: <T>(work: (em: EntityManager) => Promise<T>) => work(t().app.fork()),
      } satisfies TickContext),
  };
}
