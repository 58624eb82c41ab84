import type { NetworkConfig } from '../../chains/networks.ts';
import type { Consumer } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PayoutChains } from '../payout/payout.chain.ts';
import { completionGate } from '../payout/payout.completion.ts';
import { INITIAL_LOOKBACK_BLOCKS } from '../payout/payout.consumer.ts';
import { type ExpireMemo, expirePayouts, forgetQuiet } from '../payout/payout.expire.ts';
import { completeDue, forgetExecutions } from '../payout/payout.settle.ts';
import {
  BATCH_EXECUTED_TOPIC,
  ITEM_FAILED_TOPIC,
  ITEM_PAID_TOPIC,
  recordBatchEvents,
} from './batch.settle.ts';

/**
 * Batch items as a consumer of a network's chain follower: the batch router's item events settle
 * items; executed items complete at their depth; a reorganisation sends them back to waiting. Expiry
 * of items is settled after this stream's ticks, on evidence at a final block it processed (payout.expire.ts).
 */

export const BATCHES_STREAM = 'batches';

export function batchConsumer(
  deps: { chains: PayoutChains; logger: Logger; startBlock?: number },
  network: NetworkConfig,
  router: string,
): Consumer {
  const log = deps.logger.child({ consumer: BATCHES_STREAM, network: network.id });
  const expiry: ExpireMemo = {};
  // A block with no logs completes nothing while no executed item waits (payout.completion.ts).
  const completion = completionGate(network, { batch: true });
  return {
    stream: BATCHES_STREAM,
    filter: { address: router, topics: [[ITEM_PAID_TOPIC, ITEM_FAILED_TOPIC, BATCH_EXECUTED_TOPIC]] },
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
          await recordBatchEvents(tx, network, event.logs, log);
          await completeDue(tx, network, event.head, { batch: true });
          await completion.look(tx);
          return;
        case 'reorg':
          completion.forget();
          forgetQuiet(expiry); // a lost execution leaves its payout open again
          await forgetExecutions(tx, network, event.ancestor.number, log, { batch: true });
          return;
        case 'finalize':
          return;
      }
    },
    async afterTick(ctx) {
      completion.committed(ctx.cursor);
      await expirePayouts({ chains: deps.chains, logger: log }, network, ctx, { batch: true }, expiry);
      // A pass that found stranded items may have recorded an execution the stream missed.
      if (expiry.nothingAt === undefined) completion.forget();
    },
  };
}
