import type { EntityManager } from '../../db/orm.ts';
import type { Consumer } from '../../followers/types.ts';
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

/**
 * Where a settle pass last ran to completion, so a tick does not run it twice at one evidence block
 * (payout.expire.ts's memo, for a pass that leaves nothing behind: every pending deposit of a block up
 * to it is credited, every mined sweep up to it finished, or the pass throws). `inTick`: the finalize
 * event of this tick's block transaction settled there (the follower calls `afterTick` only once that
 * transaction committed; a block event clears it, so one left by a tick that failed is never trusted).
 * `doneAt`: an after-tick pass committed there. Nothing can become due at or below an evidence block
 * that stands still: a deposit or a sweep's mined block is recorded from the stream's logs at a block
 * above its cursor, which moves the evidence block once it is final; a block event with logs (a deep
 * reorganisation re-recording blocks below it) or a reorganisation forgets the memo all the same.
 *
 * `next`: the lowest block of anything a pass would settle later (a pending deposit, a mined sweep;
 * Infinity: nothing), as a committed pass left it: no pass is needed while the evidence block stays
 * below it, however far it moves (a chain mining empty blocks moves it every tick). Only a block
 * event with logs records something new, and it forgets `next`; another process leading the network
 * meanwhile could too, so a consumer lives only as long as its process leads the network
 * (daemons/chain-followers.ts makes them anew). `tickNext`: what this tick's block transaction found,
 * trusted as `next` once it committed: the stream's cursor is then `tickTo`, the block it moved to.
 */
interface SettleMemo {
  inTick?: number;
  doneAt?: number;
  tickNext?: number;
  tickTo?: string;
  next?: number;
}

/** The lowest block at which a pending deposit or a mined sweep waits to settle; Infinity: none. */
async function nextToSettle(em: EntityManager, network: DepositNetwork): Promise<number> {
  const [row] = await em.execute<{ next: string | null }[]>(
    `select least((select min(block_number) from deposits where network = ? and status = 'pending'),
                  (select min(mined_block) from sweeps where network = ? and status = 'mined'))::text as next`,
    [network.id, network.id],
  );
  return row?.next == null ? Number.POSITIVE_INFINITY : Number(row.next);
}

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
  const memo: SettleMemo = {};

  /** Settles what is final at `finalized`; answers where the next thing to settle is. */
  const settle = async (tx: EntityManager, finalized: number) => {
    await settleFinalDeposits(tx, network, finalized);
    await finishSweeps(tx, network, finalized, now());
    return nextToSettle(tx, network);
  };
  /** Nothing can be due at `evidence`: a committed pass found nothing at or below it. */
  const nothingDue = (evidence: number) => memo.next !== undefined && evidence < memo.next;

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
          // New deposits and mined sweeps are written here; whatever a pass settled before is stale.
          memo.inTick = memo.tickNext = undefined;
          memo.tickTo = event.to.hash;
          if (event.logs.length > 0) memo.doneAt = memo.next = undefined;
          await recordDeposits(tx, network, event.logs, event.finalized);
          await recordSweeps(tx, network, event.logs);
          return;
        case 'reorg':
          memo.inTick = memo.doneAt = memo.next = memo.tickNext = undefined;
          await forgetSweeps(tx, network, event.ancestor.number);
          await forgetDeposits(tx, network, event.ancestor.number, log);
          return;
        case 'finalize':
          memo.tickNext = nothingDue(event.block) ? memo.next : await settle(tx, event.block);
          memo.inTick = event.block;
          return;
      }
    },
    async afterTick(ctx) {
      // Finality can move on without a block for this stream (the cursor is at the head already).
      const evidence = Math.min(ctx.finalized, ctx.cursor.number);
      // The tick's block transaction committed (afterTick runs only then, the cursor moved where it
      // went): what it found stands.
      if (memo.inTick === evidence && memo.tickTo === ctx.cursor.hash && memo.tickNext !== undefined)
        memo.next = memo.tickNext;
      const settled = memo.inTick === evidence || memo.doneAt === evidence || nothingDue(evidence);
      memo.inTick = memo.tickNext = memo.tickTo = undefined;
      if (!settled) {
        memo.next = await ctx.transaction((tx) => settle(tx, evidence));
        memo.doneAt = evidence;
      }
      if (!deps.canSweep || Date.now() - lastSweep < interval) return;
      lastSweep = Date.now();
      await ctx.transaction((tx) => startSweep(tx, network, now(), log));
    },
  };
}
