import type { Consumer } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import { recordPayments } from '../ledger/ledger.ts';
import { PAYMENT_TOPIC, type SessionNetwork } from './session.chain.ts';
import { claimable, claimPayments, paymentEntries } from './session.match.ts';
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

export function sessionConsumer(deps: SessionConsumerDeps, network: SessionNetwork): Consumer {
  const log = deps.logger.child({ consumer: SESSIONS_STREAM, network: network.id });
  return {
    stream: SESSIONS_STREAM,
    filter: { address: network.contracts.paymentRouter, topics: [PAYMENT_TOPIC] },
    startBlock: (head) => deps.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS),
    async handle(tx, event) {
      switch (event.type) {
        case 'block': {
          const entries = paymentEntries(network, event.logs);
          await recordPayments(tx, network.id, entries);
          // The range's own payments; whatever else became claimable is afterTick's pass.
          await claimPayments(tx, network, log, event.head, entries);
          await completeDue(tx, network, event.head);
          return;
        }
        case 'reorg':
          await releasePayments(tx, network, event.ancestor.number, log);
          return;
        case 'finalize':
          // Nothing to do: a session completes at its tier's depth, which is within finality.
          return;
      }
    },
    async afterTick(ctx) {
      // A player may report a transaction the ledger already holds: match it without waiting for a block.
      // Looked for with a plain read first: the claim's locks and its transaction only when one is there
      // (a report that commits after the read is seen by the next tick's).
      if (await ctx.read((em) => claimable(em, network)))
        await ctx.transaction((tx) => claimPayments(tx, network, log));
      await watchSessions(deps, network, ctx);
    },
  };
}
