import type { NetworkConfig } from '../../chains/networks.ts';
import type { EntityManager } from '../../db/orm.ts';
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
 * Whether batch items executed on chain wait for their depth to complete, as a committed block
 * transaction left them (false: none; undefined: not known). An item's execution is recorded only
 * from its log, so while none waits a block event with no logs has nothing to complete and runs
 * nothing (a chain mining empty blocks sent one every tick). `tick`: what this tick's block
 * transaction found, trusted once it committed: the stream's cursor is then `tickTo`. A consumer lives
 * only as long as its process leads the network (daemons/chain-followers.ts), so no other leader
 * recorded executions meanwhile.
 */
interface CompletionMemo {
  waiting?: boolean;
  tick?: boolean;
  tickTo?: string;
}

/** Whether any batch item of the network was executed and waits for its depth to complete. */
async function executionsWaiting(tx: EntityManager, network: NetworkConfig): Promise<boolean> {
  const [row] = await tx.execute<{ waiting: boolean }[]>(
    `select exists(select 1 from payouts where network = ? and status = 'submitted'
                      and executed_block is not null and batch_id is not null) as waiting`,
    [network.id],
  );
  return row?.waiting === true;
}

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
  const completion: CompletionMemo = {};
  return {
    stream: BATCHES_STREAM,
    filter: { address: router, topics: [[ITEM_PAID_TOPIC, ITEM_FAILED_TOPIC, BATCH_EXECUTED_TOPIC]] },
    startBlock: (head) => deps.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS),
    async handle(tx, event) {
      switch (event.type) {
        case 'block':
          completion.tickTo = event.to.hash;
          if (event.logs.length === 0 && completion.waiting === false) {
            completion.tick = false;
            return;
          }
          completion.tick = undefined;
          await recordBatchEvents(tx, network, event.logs, log);
          await completeDue(tx, network, event.head, { batch: true });
          completion.tick = await executionsWaiting(tx, network);
          return;
        case 'reorg':
          completion.waiting = completion.tick = completion.tickTo = undefined;
          await forgetExecutions(tx, network, event.ancestor.number, log, { batch: true });
          return;
        case 'finalize':
          return;
      }
    },
    afterTick: (ctx) => {
      if (completion.tick !== undefined && completion.tickTo === ctx.cursor.hash)
        completion.waiting = completion.tick;
      completion.tick = completion.tickTo = undefined;
      return expirePayouts({ chains: deps.chains, logger: log }, network, ctx, { batch: true }, expiry);
    },
  };
}
