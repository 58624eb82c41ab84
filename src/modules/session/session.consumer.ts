import { executeBound } from '../../db/bulk.ts';
import type { EntityManager } from '../../db/orm.ts';
import { Finding } from '../../followers/finding.ts';
import type { Consumer } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import { recordPayments } from '../ledger/ledger.ts';
import { PAYMENT_TOPIC, type SessionNetwork } from './session.chain.ts';
import { claimableOrWaiting, claimPayments, PAID_WAITING, paymentEntries } from './session.match.ts';
import { completeDue, releasePayments } from './session.settle.ts';
import { type WatchDeps, watchSessions } from './session.watch.ts';

/**
 * Deposit sessions as a consumer of a network's chain follower: router `Payment` logs become ledger
 * rows, ledger rows pay sessions, sessions complete at their depth; a reorganisation releases what it
 * took away; after each tick, reported transactions and expiry are settled (session.watch.ts).
 */

/** Blocks read behind the head when the stream has no cursor yet. */
export const INITIAL_LOOKBACK_BLOCKS = 10_000;
export const SESSIONS_STREAM = 'sessions';

export interface SessionConsumerDeps extends WatchDeps {
  logger: Logger;
  /** First block when the stream has no cursor; default INITIAL_LOOKBACK_BLOCKS behind the head. */
  startBlock?: number;
}

/**
 * Whether a paid session waits for its depth (the one thing an empty block can do for this stream:
 * complete it; a late report is claimed by the after-tick pass).
 */
async function paidWaiting(em: EntityManager, network: SessionNetwork): Promise<boolean> {
  const [row] = await executeBound<{ waiting: boolean }>(em, `select exists (${PAID_WAITING}) as waiting`, [
    network.id,
  ]);
  return row?.waiting === true;
}

export function sessionConsumer(deps: SessionConsumerDeps, network: SessionNetwork): Consumer {
  const log = deps.logger.child({ consumer: SESSIONS_STREAM, network: network.id });
  // Whether a paid session waits for its depth, as the follower's findings are (finding.ts). An
  // operator may attach a payment from another process (src/modules/stray): while none waits, each
  // tick looks again with a plain read, so such a session completes a tick later at most.
  const waiting = new Finding<boolean>();
  return {
    stream: SESSIONS_STREAM,
    filter: { address: network.contracts.paymentRouter, topics: [PAYMENT_TOPIC] },
    startBlock: (head) => deps.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS),
    // An empty block while no paid session waits writes nothing: the follower may skip it.
    idle: (event) => event.logs.length === 0 && waiting.value === false,
    rolledBack: () => waiting.rollback(),
    async handle(tx, event) {
      switch (event.type) {
        case 'block': {
          waiting.begin(event.to);
          const entries = paymentEntries(network, event.logs);
          await recordPayments(tx, network.id, entries);
          // The range's own payments; whatever else became claimable is afterTick's pass.
          await claimPayments(tx, network, log, event.head, entries);
          await completeDue(tx, network, event.head);
          waiting.found(await paidWaiting(tx, network));
          return;
        }
        case 'reorg':
          waiting.forget();
          await releasePayments(tx, network, event.ancestor.number, log);
          return;
        case 'finalize':
          // Nothing to do: a session completes at its tier's depth, which is within finality.
          return;
      }
    },
    async afterTick(ctx) {
      waiting.committed(ctx.cursor);
      // A player may report a transaction the ledger already holds: match it without waiting for a block.
      // Looked for with a plain read first: the claim's locks and its transaction only when one is there
      // (a report that commits after the read is seen by the next tick's).
      // The same read says whether a paid session waits (one an operator attached, from any process).
      const look = await ctx.read((em) => claimableOrWaiting(em, network));
      if (waiting.value !== true) waiting.know(look.waiting);
      if (look.claimable) {
        const paid = await ctx.transaction((tx) => claimPayments(tx, network, log));
        if (paid.length > 0) waiting.know(true);
      }
      await watchSessions(deps, network, ctx);
    },
  };
}
