import type { EntityManager } from '../../db/orm.ts';
import { Finding } from '../../followers/finding.ts';
import type { Consumer } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import type { DepositNetwork } from './deposit.chain.ts';
import { forgetDeposits, recordDeposits } from './deposit.scan.ts';
import { TRANSFER_TOPIC } from './deposit.transfers.ts';
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
 * Where a settle pass last ran to completion (`at`) and the lowest block of anything a pass would
 * settle later (`next`: a pending deposit, a mined sweep; Infinity: nothing), as the follower's
 * findings are trusted (src/followers/finding.ts): found by a block transaction's finality, or known
 * from an after-tick pass. A pass leaves nothing behind at or below its block (every pending deposit
 * up to it is credited, every mined sweep finished, or the pass throws), so no pass is needed while
 * the evidence block stays below `next`, however far it moves (a chain mining empty blocks moves it
 * every tick): only a block event with logs records something new, and it forgets the memo, as does a
 * reorganisation.
 */
interface Settled {
  at: number;
  next: number;
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
  const memo = new Finding<Settled>();

  /** Settles what is final at `finalized`; answers where the next thing to settle is. */
  const settle = async (tx: EntityManager, finalized: number) => {
    await settleFinalDeposits(tx, network, finalized);
    await finishSweeps(tx, network, finalized, now());
    return nextToSettle(tx, network);
  };
  /** Nothing can be due at `evidence`: a committed pass found nothing at or below it. */
  const nothingDue = (evidence: number) => {
    const known = memo.value;
    return known !== undefined && (evidence === known.at || evidence < known.next);
  };

  return {
    stream: DEPOSITS_STREAM,
    filter: {
      address: [...network.tokens.map((t) => t.address), network.site.factory.toLowerCase()],
      topics: [[TRANSFER_TOPIC, SWEPT_TOPIC, SWEEP_FAILED_TOPIC]],
    },
    startBlock: (head) => deps.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS),
    // An empty block whose finality has nothing to settle writes nothing: the follower may skip it.
    idle: (event) => event.logs.length === 0 && nothingDue(Math.min(event.finalized, event.to.number)),
    rolledBack: () => memo.rollback(),
    async handle(tx, event) {
      switch (event.type) {
        case 'block':
          // New deposits and mined sweeps are written here; whatever a pass settled before is stale.
          if (event.logs.length > 0) memo.forget();
          memo.begin(event.to);
          await recordDeposits(tx, network, event.logs, event.finalized);
          await recordSweeps(tx, network, event.logs);
          return;
        case 'reorg':
          memo.forget();
          await forgetSweeps(tx, network, event.ancestor.number);
          await forgetDeposits(tx, network, event.ancestor.number, log);
          return;
        case 'finalize': {
          const at = event.block;
          memo.found({ at, next: nothingDue(at) ? memo.value!.next : await settle(tx, at) });
          return;
        }
      }
    },
    async afterTick(ctx) {
      // Finality can move on without a block for this stream (the cursor is at the head already).
      const evidence = Math.min(ctx.finalized, ctx.cursor.number);
      // This tick's block transaction committed (afterTick runs only then; one that rolled back told
      // the memo): its pass at the evidence block stands, and what it found once the cursor is there.
      const settled = memo.fresh?.at === evidence;
      memo.committed(ctx.cursor);
      if (!settled && !nothingDue(evidence)) {
        const next = await ctx.transaction((tx) => settle(tx, evidence));
        memo.know({ at: evidence, next });
      }
      if (!deps.canSweep || Date.now() - lastSweep < interval) return;
      lastSweep = Date.now();
      await ctx.transaction((tx) => startSweep(tx, network, now(), log));
    },
  };
}
