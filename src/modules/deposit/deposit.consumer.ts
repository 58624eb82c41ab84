import type { Consumer, TickContext } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { DepositNetwork } from './deposit.chain.ts';
import { forgetDeposits, recordDeposits, TRANSFER_TOPIC } from './deposit.scan.ts';
import { settleFinalDeposits } from './deposit.transition.ts';
import {
  finishSweeps,
  forgetSweeps,
  recordSweeps,
  SWEEP_FAILED_TOPIC,
  SWEPT_TOPIC,
  startSweep,
} from './sweep.ts';

/**
 * Standing addresses as a consumer of a network's chain follower (stream `deposits`): one log filter
 * for the transfers of every configured token and the ForwarderFactory's sweep events, so a range costs
 * one `eth_getLogs` whatever the number of addresses (on tron, the solidified blocks). Transfers to
 * issued addresses become pending deposits; a deposit is credited once its block is final (on tron every
 * block the follower sees is; one found on a final block is inserted credited); a reorganisation before
 * that forgets it. After each tick the sweeper
 * queues a sweep when one is due.
 */

export const DEPOSITS_STREAM = 'deposits';
/** Blocks read behind the head when the stream has no cursor yet. */
export const INITIAL_LOOKBACK_BLOCKS = 10_000;
/** Least time between two sweeps started on a network. */
export const SWEEP_INTERVAL_MS = 30_000;

export interface DepositConsumerDeps {
  logger: Logger;
  /** First block when the stream has no cursor; default INITIAL_LOOKBACK_BLOCKS behind the head. */
  startBlock?: number;
  /** Least time between sweeps (tests shorten it); 0 sweeps after every tick. */
  sweepIntervalMs?: number;
  /** Whether this network can relay sweeps (a relayer wallet is configured). */
  canSweep: boolean;
  now?: () => Date;
}

export function depositConsumer(deps: DepositConsumerDeps, network: DepositNetwork): Consumer {
  const log = deps.logger.child({ consumer: DEPOSITS_STREAM, network: network.id });
  const now = deps.now ?? (() => new Date());
  const interval = deps.sweepIntervalMs ?? SWEEP_INTERVAL_MS;
  let lastSweep = 0;

  const settle = (ctx: Pick<TickContext, 'transaction'>, finalized: number) =>
    ctx.transaction(async (tx) => {
      await settleFinalDeposits(tx, network, finalized);
      await finishSweeps(tx, network, finalized, now());
    });

  return {
    stream: DEPOSITS_STREAM,
    filter: {
      address: [...network.tokens.map((t) => t.address), network.site.factory.toLowerCase()],
      topics: [[TRANSFER_TOPIC, SWEPT_TOPIC, SWEEP_FAILED_TOPIC]],
    },
    startBlock: (head) => deps.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS),
    async handle(tx, event) {
      switch (event.type) {
        case 'block':
          await recordDeposits(tx, network, event.logs, event.finalized);
          await recordSweeps(tx, network, event.logs);
          return;
        case 'reorg':
          await forgetSweeps(tx, network, event.ancestor.number);
          await forgetDeposits(tx, network, event.ancestor.number, log);
          return;
        case 'finalize':
          await settleFinalDeposits(tx, network, event.block);
          await finishSweeps(tx, network, event.block, now());
          return;
      }
    },
    async afterTick(ctx) {
      // Finality can move on without a block for this stream (the cursor is at the head already).
      await settle(ctx, Math.min(ctx.finalized, ctx.cursor.number));
      if (!deps.canSweep || Date.now() - lastSweep < interval) return;
      lastSweep = Date.now();
      await ctx.transaction((tx) => startSweep(tx, network, now(), log));
    },
  };
}
