import type { BlockHeader } from '../chains/types.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import type { WindowChange } from './lazy-save.ts';
import { LeadershipLost } from './leadership.ts';
import type { BlockEvent, FollowerMemory, Step } from './stepping.ts';
import { type CursorMove, CursorMoved, loadCursor, moveCursor, moveCursors, saveWindow } from './store.ts';
import type { Consumer } from './types.ts';

export interface WritesDeps {
  networkId: string;
  fork: () => EntityManager;
  /** Throws when this process no longer leads the network; runs first in every transaction. */
  fence: (tx: EntityManager) => Promise<void>;
  log: Logger;
  memory: FollowerMemory;
}

/**
 * The follower's transactions: each fenced, and what goes into which one (a stream's blocks with its
 * cursor, a rewind with its cursor, the tick's shared commit with the window written last).
 */
export function createWrites(deps: WritesDeps) {
  const { networkId, log, memory } = deps;

  /** A transaction of this follower: fenced, then `work`. */
  const transaction = <T>(work: (tx: EntityManager) => Promise<T>) =>
    deps.fork().transactional(async (tx) => {
      await deps.fence(tx);
      return work(tx);
    });

  /**
   * A transaction applying the events of `of`: should it fail, each is told (`rolledBack`), so what
   * its handlers found there is never trusted (finding.ts).
   */
  const applying = async <T>(of: readonly Consumer[], work: (tx: EntityManager) => Promise<T>) => {
    try {
      return await transaction(work);
    } catch (error) {
      for (const consumer of of) consumer.rolledBack?.();
      throw error;
    }
  };

  /**
   * Undoes a consumer's blocks above `ancestor` and moves its cursor there, in one transaction. A
   * stream whose stored cursor is at or below the ancestor but that went above it in memory (idle
   * blocks, which wrote nothing) hears of the reorganisation all the same, and reads again from its
   * stored cursor.
   */
  async function rewind(
    consumer: Consumer,
    ancestor: BlockHeader,
    head: BlockHeader,
    ahead?: ReadonlyMap<string, BlockHeader>,
  ): Promise<void> {
    const inMemory = ahead?.get(consumer.stream);
    await applying([consumer], async (tx) => {
      const cursor = await loadCursor(tx, networkId, consumer.stream);
      if (!cursor) return;
      const above = cursor.number > ancestor.number;
      if (!above && !(inMemory && inMemory.number > ancestor.number)) return;
      await consumer.handle(tx, { type: 'reorg', ancestor, head });
      if (above) await moveCursor(tx, networkId, consumer.stream, cursor, ancestor);
    });
    // Reread: the rewind may have found the stored cursor below the ancestor already.
    memory.cursors = memory.stored = undefined;
  }

  /** Every stream whose cursor moved in memory since it was stored, compare-and-set against that. */
  function pendingMoves(): CursorMove[] {
    const moves: CursorMove[] = [];
    for (const [stream, block] of memory.cursors ?? []) {
      const from = memory.stored?.get(stream) ?? null;
      if (from?.number !== block.number || from.hash !== block.hash)
        moves.push({ stream, expected: from, block });
    }
    return moves;
  }

  /**
   * One transaction for the tick: the busy steps' blocks and what of them is final now, every cursor
   * moved since it was stored (busy or idle), and what the window learnt (written last: its rows stay
   * unlocked while consumers work, so a stalled old leader does not hold up the new one, which finds
   * the old one's cursor move refused at commit). Should it fail (one consumer's handler, say), the busy
   * steps are retried one transaction each, so the others are not held back by it.
   */
  async function commitSteps(
    busy: { step: Step; event: BlockEvent }[],
    windowChange: WindowChange,
  ): Promise<void> {
    const moves = pendingMoves();
    const write = async (tx: EntityManager, of: CursorMove[]) => {
      await moveCursors(tx, networkId, of);
      await saveWindow(tx, networkId, windowChange);
    };
    try {
      await applying(
        busy.map((b) => b.step.consumer),
        async (tx) => {
          for (const { step, event } of busy) await handle(tx, step.consumer, event);
          await write(tx, moves);
        },
      );
    } catch (error) {
      if (busy.length === 0 || error instanceof LeadershipLost || error instanceof CursorMoved) throw error;
      log.warn("the tick's transaction failed; applying each stream on its own", { error });
      for (const { step, event } of busy) {
        await applying([step.consumer], (tx) => apply(tx, step.consumer, step.expected, event));
        memory.stored?.set(step.consumer.stream, step.to);
      }
      const rest = moves.filter((m) => !busy.some((b) => b.step.consumer.stream === m.stream));
      await transaction((tx) => write(tx, rest));
    }
    for (const move of moves) memory.stored?.set(move.stream, move.block);
  }

  /** Inside a transaction: the blocks, what of them is final now, and the cursor moved from `from`. */
  async function apply(
    tx: EntityManager,
    consumer: Consumer,
    from: BlockHeader | null,
    event: BlockEvent,
  ): Promise<void> {
    await handle(tx, consumer, event);
    await moveCursor(tx, networkId, consumer.stream, from, event.to);
  }

  /** The blocks, then what of them is final now. */
  async function handle(tx: EntityManager, consumer: Consumer, event: BlockEvent): Promise<void> {
    await consumer.handle(tx, event);
    await consumer.handle(tx, { type: 'finalize', block: Math.min(event.finalized, event.to.number) });
  }

  return { transaction, applying, rewind, commitSteps, apply };
}
