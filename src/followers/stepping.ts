import { type EvmLog, logMatches, unionFilter } from '../chains/evm/index.ts';
import type { BlockHeader } from '../chains/types.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import type { HeaderReads } from './headers.ts';
import { loadCursors } from './store.ts';
import type { ChainSource, Consumer, FollowerEvent } from './types.ts';
import type { BlockWindow } from './window.ts';

/**
 * A window-less stream (Tron's: every block it reads is final) at most this far behind the head takes
 * its blocks with the other streams, in the tick's one transaction; further behind, it catches up alone.
 */
export const SHORT_RANGE_BLOCKS = 100;

export type BlockEvent = Extract<FollowerEvent, { type: 'block' }>;

/** A stream's part of a tick's shared transaction: its blocks after `cursor` up to `to`. */
export interface Step {
  consumer: Consumer;
  /** The stream's cursor: the step's blocks start after it. */
  after: BlockHeader;
  /** The stream's cursor as stored, which the move compares with (null: the step inserts it). */
  expected: BlockHeader | null;
  /** `window`: unfinalized blocks, read by hash; `final`: a short range of final blocks, read by range. */
  kind: 'window' | 'final';
  to: BlockHeader;
}

/**
 * What the follower holds in memory and rereads from the database after a failure (it sets a field
 * back to undefined): the window of unfinalized headers and the streams' cursors.
 */
export interface FollowerMemory {
  window: BlockWindow | undefined;
  /**
   * The streams' cursors as this follower last read or moved them (in memory: idle blocks move them
   * without a write); reread after a failed tick, with `stored`.
   */
  cursors: Map<string, BlockHeader> | undefined;
  /** The streams' cursors as stored: what each cursor move compares with. */
  stored: Map<string, BlockHeader> | undefined;
}

export interface SteppingDeps {
  networkId: string;
  source: ChainSource;
  fork: () => EntityManager;
  log: Logger;
  maxBlocksPerTick: number;
  memory: FollowerMemory;
  headers: HeaderReads;
  /** A fenced transaction applying the events of `of` (each told `rolledBack` should it fail). */
  applying: <T>(of: readonly Consumer[], work: (tx: EntityManager) => Promise<T>) => Promise<T>;
  /** Inside a transaction: the blocks, what of them is final now, and the cursor moved from `from`. */
  apply: (
    tx: EntityManager,
    consumer: Consumer,
    from: BlockHeader | null,
    event: BlockEvent,
  ) => Promise<void>;
  /** Undoes a consumer's blocks above `ancestor` and moves its cursor there. */
  rewind: (consumer: Consumer, ancestor: BlockHeader, head: BlockHeader) => Promise<void>;
}

/**
 * How each stream gets to its part of a tick: a backfill of final blocks on its own, a cursor off the
 * followed chain rewound, then a {@link Step} with the others, whose logs one read fetches for all.
 */
export function createStepping(deps: SteppingDeps) {
  const { source, memory, headers, networkId, log } = deps;

  /**
   * Brings a consumer up to where the tick's shared step starts: final blocks far behind are fed by
   * range in transactions of their own, a cursor off the followed chain is rewound; what is left (the
   * window's blocks, or a short final range of a window-less stream) is the step it takes with the
   * others in `commitSteps` (writes.ts).
   */
  async function prepare(
    consumer: Consumer,
    head: BlockHeader,
    finalized: number,
    floor: number,
  ): Promise<{ cursor: BlockHeader; step?: Step }> {
    let { cursor, expected } = await startingCursor(consumer, head);
    const budgetEnd = cursor.number + deps.maxBlocksPerTick;
    const windowless = memory.window!.start === undefined && floor > head.number;
    if (
      expected &&
      windowless &&
      cursor.number < head.number &&
      head.number - cursor.number <= SHORT_RANGE_BLOCKS
    )
      return { cursor, step: { consumer, after: cursor, expected, kind: 'final', to: head } };
    const finalEnd = Math.min(floor - 1, budgetEnd, head.number);
    if (cursor.number < finalEnd) {
      // Pipelined: the next chunk (its logs and its last header) is read while this one commits, so a
      // backfill costs about the slower of the node and the database, not their sum. The read runs
      // beside the transaction, never inside it: the transaction awaits no chain call. Chunks still
      // commit one at a time, in order; a failed commit abandons the read ahead (its result unused).
      const chunks = source.finalLogs(consumer.filter, cursor.number + 1, finalEnd);
      let next = headers.readAhead(chunks);
      for (let item = await next; item; item = await next) {
        next = headers.readAhead(chunks);
        next.catch(() => {}); // surfaced when awaited; unobserved when this commit fails first
        const { chunk, to } = item;
        const event = {
          type: 'block',
          from: chunk.fromBlock,
          to,
          logs: chunk.logs,
          head,
          finalized,
        } as const;
        await deps.applying([consumer], (tx) => deps.apply(tx, consumer, expected, event));
        cursor = expected = to;
        memory.cursors?.set(consumer.stream, to);
        memory.stored?.set(consumer.stream, to);
      }
    }
    if (cursor.number < floor - 1) return { cursor }; // still in the final range: next tick
    if (!(await onFollowedChain(cursor, floor, head))) {
      // The cursor's block is not the canonical block at its height (a crash between a window update
      // and a rewind, a window reread from the database, a head that went below it): a reorganisation,
      // found by hash. Start the stream again from the last final block (below the cursor's own);
      // every handler is idempotent.
      const base = await headers.finalHeader(Math.min(floor - 1, cursor.number - 1));
      log.warn('stream cursor is off the followed chain; rewinding to the last final block', {
        stream: consumer.stream,
        cursor: cursor.number,
        to: base.number,
      });
      await deps.rewind(consumer, base, head);
      return { cursor: base };
    }
    const blocks = memory.window!.range(cursor.number + 1, Math.min(head.number, budgetEnd));
    if (blocks.length === 0) return { cursor };
    return {
      cursor,
      step: { consumer, after: cursor, expected, kind: 'window', to: blocks.at(-1)! },
    };
  }

  /** Each step's block event: its own logs of one read for all of them (their filters joined). */
  async function stepEvents(steps: Step[], head: BlockHeader, finalized: number): Promise<BlockEvent[]> {
    const logs = await stepLogs(steps, head);
    return steps.map((step) => {
      const from = step.after.number + 1;
      const mine = logs.filter(
        (l) =>
          l.blockNumber >= from && l.blockNumber <= step.to.number && logMatches(step.consumer.filter, l),
      );
      return { type: 'block', from, to: step.to, logs: mine, head, finalized } as const;
    });
  }

  /** The logs of every step, in chain order: window blocks by hash, a short final range by range. */
  async function stepLogs(steps: Step[], head: BlockHeader): Promise<EvmLog[]> {
    const logs: EvmLog[] = [];
    const byKind = (kind: Step['kind']) => steps.filter((s) => s.kind === kind);
    const from = (of: Step[]) => Math.min(...of.map((s) => s.after.number + 1));
    const filter = (of: Step[]) => unionFilter(of.map((s) => s.consumer.filter));
    const final = byKind('final');
    if (final.length > 0) {
      for await (const chunk of source.finalLogs(filter(final), from(final), head.number))
        logs.push(...chunk.logs);
    }
    const inWindow = byKind('window');
    if (inWindow.length > 0) {
      const to = Math.max(...inWindow.map((s) => s.to.number));
      const blocks = memory.window!.range(from(inWindow), to);
      const perBlock = await source.blockLogs(
        filter(inWindow),
        blocks.map((b) => b.hash),
      );
      logs.push(...perBlock.flat());
    }
    return logs;
  }

  /**
   * Whether the cursor is a block of the followed chain, by hash: the window's block at its height (or
   * the parent of the window's first block), else the node's canonical block there.
   */
  async function onFollowedChain(cursor: BlockHeader, floor: number, head: BlockHeader): Promise<boolean> {
    if (cursor.number < 0) return true;
    const window = memory.window!;
    const expected = cursor.number >= floor ? window.get(cursor.number)?.hash : window.get(floor)?.parentHash;
    if (expected !== undefined) return expected === cursor.hash;
    // At the head (a Tron stream always is: its window is empty): no request needed.
    if (cursor.number === head.number) return head.hash === cursor.hash;
    const [canonical] = await source.headers([cursor.number]);
    return canonical?.hash === cursor.hash;
  }

  /** The stream's cursor (in memory) and its stored one, or where it starts (not stored yet: null). */
  async function startingCursor(
    consumer: Consumer,
    head: BlockHeader,
  ): Promise<{ cursor: BlockHeader; expected: BlockHeader | null }> {
    if (!memory.cursors || !memory.stored) {
      memory.stored = await loadCursors(deps.fork(), networkId);
      memory.cursors = new Map(memory.stored);
    }
    const expected = memory.stored.get(consumer.stream) ?? null;
    const cursor = memory.cursors.get(consumer.stream);
    if (cursor && expected) return { cursor, expected };
    const start = Math.max(0, Math.min(consumer.startBlock(head), head.number));
    const begin =
      start === 0
        ? { number: -1, hash: '', parentHash: '', timestamp: 0 }
        : await headers.finalHeader(start - 1);
    return { cursor: begin, expected: null };
  }

  return { prepare, stepEvents };
}
