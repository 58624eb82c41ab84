import type { NetworkConfig } from '../../chains/networks.ts';
import type { Consumer } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { FollowerOptions, ModuleContext } from '../module.ts';
import type { PayoutChains } from './payout.chain.ts';
import { completionGate } from './payout.completion.ts';
import { type ExpireMemo, expirePayouts, forgetQuiet } from './payout.expire.ts';
import { PAYOUT_EXECUTED_TOPIC } from './payout.order.ts';
import { completeDue, forgetExecutions, recordExecutions } from './payout.settle.ts';

/**
 * The relay confirmer: single payouts as a consumer of a network's chain follower. The router's
 * `PayoutExecuted` logs mark orders executed, executions complete at their depth with
 * `payout.completed`, a reorganisation sends them back to waiting, and after each tick single payouts
 * that can no longer be paid settle `failed` on final evidence (payout.expire.ts).
 */

export const PAYOUTS_STREAM = 'payouts';
/** Blocks read behind the head when the stream has no cursor yet. */
export const INITIAL_LOOKBACK_BLOCKS = 10_000;

export interface PayoutConsumerDeps {
  chains: PayoutChains;
  logger: Logger;
  /** First block when the stream has no cursor; default INITIAL_LOOKBACK_BLOCKS behind the head. */
  startBlock?: number;
}

/** The deps of a router stream (single payouts, batches) in a worker: payouts start where sessions do unless set. */
export function routerStreamDeps({ services }: ModuleContext, options: FollowerOptions): PayoutConsumerDeps {
  return {
    chains: services.payoutChains,
    logger: services.logger,
    startBlock: options.payoutStartBlock ?? options.sessionStartBlock,
  };
}

export function payoutConsumer(deps: PayoutConsumerDeps, network: NetworkConfig, router: string): Consumer {
  const log = deps.logger.child({ consumer: PAYOUTS_STREAM, network: network.id });
  const expiry: ExpireMemo = {};
  // A block with no logs completes nothing while no execution waits (payout.completion.ts).
  const completion = completionGate(network, { batch: false });
  return {
    stream: PAYOUTS_STREAM,
    filter: { address: router, topics: [PAYOUT_EXECUTED_TOPIC] },
    startBlock: (head) => deps.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS),
    // An empty block while no execution waits writes nothing: the follower may skip its transaction.
    idle: (event) => completion.idle(event),
    rolledBack: () => completion.rollback(),
    async handle(tx, event) {
      switch (event.type) {
        case 'block':
          // Logs may record a conflict under a payout's nonce: the expiry pass looks again.
          if (event.logs.length > 0) forgetQuiet(expiry);
          if (completion.skip(event)) return;
          await recordExecutions(tx, network, router, event.logs, log);
          await completeDue(tx, network, event.head);
          await completion.look(tx);
          return;
        case 'reorg':
          completion.forget();
          forgetQuiet(expiry); // a lost execution leaves its payout open again
          await forgetExecutions(tx, network, event.ancestor.number, log);
          return;
        case 'finalize':
          return;
      }
    },
    async afterTick(ctx) {
      completion.committed(ctx.cursor);
      await expirePayouts({ chains: deps.chains, logger: log }, network, ctx, { batch: false }, expiry);
      // A pass that found stranded payouts may have recorded an execution the stream missed.
      if (expiry.nothingAt === undefined) completion.forget();
    },
  };
}
