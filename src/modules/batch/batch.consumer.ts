import type { NetworkConfig } from '../../chains/networks.ts';
import type { Consumer } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PayoutChains } from '../payout/payout.chain.ts';
import { INITIAL_LOOKBACK_BLOCKS } from '../payout/payout.consumer.ts';
import { type ExpireMemo, expirePayouts } from '../payout/payout.expire.ts';
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
  return {
    stream: BATCHES_STREAM,
    filter: { address: router, topics: [[ITEM_PAID_TOPIC, ITEM_FAILED_TOPIC, BATCH_EXECUTED_TOPIC]] },
    startBlock: (head) => deps.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS),
    async handle(tx, event) {
      switch (event.type) {
        case 'block':
          await recordBatchEvents(tx, network, event.logs, log);
          await completeDue(tx, network, event.head, { batch: true });
          return;
        case 'reorg':
          await forgetExecutions(tx, network, event.ancestor.number, log, { batch: true });
          return;
        case 'finalize':
          return;
      }
    },
    afterTick: (ctx) =>
      expirePayouts({ chains: deps.chains, logger: log }, network, ctx, { batch: true }, expiry),
  };
}
