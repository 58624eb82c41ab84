import { type EvmLog, type LogChunk, logMatches, unionFilter } from '../chains/evm/index.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import type { BlockHeader } from '../chains/types.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import { type FinalityState, type FinalityVerdict, judgeFinality, windowFloor } from './finality.ts';
import { LeadershipLost } from './leadership.ts';
import {
  type CursorMove,
  CursorMoved,
  loadCursor,
  loadCursors,
  loadFinality,
  loadWindow,
  moveCursor,
  moveCursors,
  saveNodeProblem,
  saveWindow,
} from './store.ts';
import type { ChainSource, Consumer, FollowerEvent, TickContext } from './types.ts';
import { BlockWindow } from './window.ts';

/**
 * The chain follower of one network: each `tick()` brings the hash-linked window of unfinalized
 * headers up to the head, tells every consumer about a reorganisation first (rewinding its cursor to
 * the common ancestor), then feeds it the blocks after its cursor with its logs, one transaction per
 * chunk together with the cursor. Final blocks are read by range; unfinalized ones by block hash, so
 * logs and headers always describe the same chain. What is final is the service's decision, never the
 * node's word alone (finality.ts); the window always holds the deepest confirmation tier's blocks, and a
 * node that contradicts itself is reported and settles nothing. Only the leader of a network ticks;
 * `fence` refuses a transaction of a follower that lost its leadership (leadership.ts).
 */

/** Blocks a stream may advance per tick, so one tick of a long backfill stays short. */
export const MAX_BLOCKS_PER_TICK = 100_000;
/**
 * Unfinalized blocks kept at most (unless the deepest confirmation tier needs more); deeper ones are
 * read by range, as if final, but settle nothing until the service's final block reaches them.
 */
export const MAX_WINDOW_BLOCKS = 2_048;
/**
 * A tick that found the chain as it was writes nothing, except this often the follower's `ticked_at`
 * (the liveness the console and `gateway_follower_seconds_since_tick` show).
 */
export const IDLE_HEARTBEAT_MS = 60_000;
/**
 * A window-less stream (Tron's: every block it reads is final) at most this far behind the head takes
 * its blocks with the other streams, in the tick's one transaction; further behind, it catches up alone.
 */
export const SHORT_RANGE_BLOCKS = 100;
/**
 * Blocks every stream declares idle (no logs of its own, nothing due at their depth: Consumer.idle)
 * are applied without a transaction: the cursors and the window move in memory and are written with
 * the next transaction that has something to write, on a clean stop (`flush`), and at the latest once
 * they have waited this long or this many blocks. The bound is what a crash or a takeover costs: the
 * next leader reads those blocks again from the stored cursors (one header read and one `eth_getLogs`,
 * as a short catch-up; every handler is idempotent and the blocks wrote nothing), and how far behind
 * the console's and metrics' head and lag may be (the idle heartbeat, 60 s, is far longer). The
 * after-tick passes take their evidence at the final block as stored, so a failure decided there waits
 * at most this long (the final block never moves back across leaders: finality.ts).
 */
export const MAX_UNSAVED_MS = 10_000;
/** The same bound in blocks, for fast chains (a block every 250 ms is 40 in MAX_UNSAVED_MS). */
export const MAX_UNSAVED_BLOCKS = 50;

export interface FollowerDeps {
  network: Pick<NetworkConfig, 'id'>;
  source: ChainSource;
  consumers: readonly Consumer[];
  fork: () => EntityManager;
  /** Throws when this process no longer leads the network; runs first in every transaction. */
  fence: (tx: EntityManager) => Promise<void>;
  logger: Logger;
  maxBlocksPerTick?: number;
  /** MAX_UNSAVED_MS unless set (tests). */
  maxUnsavedMs?: number;
  /** MAX_UNSAVED_BLOCKS unless set (tests; 0 writes every block, as before). */
  maxUnsavedBlocks?: number;
}

export interface TickResult {
  head: BlockHeader;
  finalized: number;
  /** Every stream reached the head. */
  caughtUp: boolean;
  /** Reorganisation handled this tick: the common ancestor. */
  reorg?: BlockHeader;
  /** The node contradicted itself this tick (nothing was settled): why. */
  inconsistent?: string;
}

export type Follower = ReturnType<typeof createFollower>;

export function createFollower(deps: FollowerDeps) {
  const { source, consumers } = deps;
  const networkId = deps.network.id;
  const log = deps.logger.child({ follower: networkId });
  let window: BlockWindow | undefined;
  /** What the service holds final (loaded on the first tick; chain_followers keeps it across leaders). */
  let known: FinalityState | undefined;
  /** The node's current inconsistency, once logged. */
  let problem: string | undefined;
  /** The last evidence block read: final blocks never change, so one read serves every stream at it. */
  let evidenceHeader: BlockHeader | undefined;
  /** What the last saved tick recorded, so an unchanged chain costs no write (but a heartbeat). */
  let saved: { key: string; at: number; head: number } | undefined;
  /**
   * The streams' cursors as this follower last read or moved them (in memory: idle blocks move them
   * without a write); reread after a failed tick, with `stored`.
   */
  let cursors: Map<string, BlockHeader> | undefined;
  /** The streams' cursors as stored: what each cursor move compares with. */
  let stored: Map<string, BlockHeader> | undefined;
  /**
   * What idle ticks left unwritten: since when, from which window block (the lowest one added since the
   * last write) and from which block a reorganisation replaced the stored window's rows.
   */
  let unsaved: { since: number; head: number; dirtyFrom?: number; reorgFrom?: number } | undefined;
  /** The last consistent tick's window change, for `flush` (a Tron window is empty: no tip to use). */
  let last: { key: string; change: Parameters<typeof saveWindow>[2] } | undefined;
  /** The final block as stored (chain_followers): the after-tick passes' evidence never passes it. */
  let storedFinal = -1;
  const maxUnsavedMs = deps.maxUnsavedMs ?? MAX_UNSAVED_MS;
  const maxUnsavedBlocks = deps.maxUnsavedBlocks ?? MAX_UNSAVED_BLOCKS;

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

  /** A read for a consumer's after-tick work: no transaction, no fence. */
  const read = <T>(work: (em: EntityManager) => Promise<T>) => work(deps.fork());

  async function tick(): Promise<TickResult> {
    try {
      return await tickOnce();
    } catch (error) {
      cursors = stored = undefined; // another writer may have moved one (CursorMoved), or a commit failed
      throw error;
    }
  }

  async function tickOnce(): Promise<TickResult> {
    const head = await source.head();
    const nodeFinalized = await source.nodeFinalized(head);
    if (!known) {
      known = await loadFinality(deps.fork(), networkId);
      storedFinal = known?.final ?? -1;
    }
    const verdict = judgeFinality(known, head.number, nodeFinalized, source.finality.depth);
    if (!verdict.ok) return distrust(head, nodeFinalized, verdict);
    if (problem) {
      log.warn('the node is consistent again; settling resumes', { head: head.number, nodeFinalized });
      problem = undefined;
    }
    const finalized = verdict.state.final;
    const floor = windowFloor(head.number, finalized, source.finality.window, MAX_WINDOW_BLOCKS);
    if (!window) {
      window = new BlockWindow(await loadWindow(deps.fork(), networkId, floor));
      if (unsaved) unsaved.dirtyFrom = unsaved.reorgFrom = undefined; // as stored again
    }
    let sync: Awaited<ReturnType<BlockWindow['sync']>>;
    try {
      sync = await window.sync(source, head, floor);
    } catch (error) {
      window = undefined; // reread from the database next time
      throw error;
    }
    if (sync.kind !== 'unchanged' && sync.added.length > 0) {
      unsaved ??= { since: Date.now(), head: saved?.head ?? head.number };
      unsaved.dirtyFrom = Math.min(unsaved.dirtyFrom ?? Infinity, sync.added[0]!.number);
    }
    if (sync.kind === 'reorg') {
      const settled = known?.final ?? -1;
      const fields = { ancestor: sync.ancestor.number, head: head.number, final: settled };
      // Deeper than what was already final: what was settled there stays settled (consumers say what).
      if (sync.ancestor.number < settled) log.error('reorganisation below the final block', fields);
      else log.warn('reorganisation', fields);
      unsaved ??= { since: Date.now(), head: saved?.head ?? head.number };
      unsaved.reorgFrom = Math.min(unsaved.reorgFrom ?? Infinity, sync.ancestor.number + 1);
      const ahead = new Map(cursors ?? []);
      for (const consumer of consumers) await rewind(consumer, sync.ancestor, head, ahead);
    }
    window.prune(floor - 1);
    const pruneTo = window!.start === undefined ? head.number : window!.start - 1;
    const key = `${head.hash}:${finalized}:${verdict.state.nodeFinalized}:${pruneTo}`;
    const reached = new Map<Consumer, BlockHeader>();
    const steps: Step[] = [];
    for (const consumer of consumers) {
      const next = await prepare(consumer, head, finalized, floor);
      reached.set(consumer, next.cursor);
      if (next.step) steps.push(next.step);
    }
    const events = await stepEvents(steps, head, finalized);
    // Blocks every stream declares idle write nothing: the cursors move in memory (see MAX_UNSAVED_MS).
    const busy = steps.filter((step, i) => !step.expected || step.consumer.idle?.(events[i]!) !== true);
    if (key !== saved?.key || steps.length > 0)
      unsaved ??= { since: Date.now(), head: saved?.head ?? head.number };
    const now = Date.now();
    const write =
      busy.length > 0 ||
      sync.kind === 'reorg' ||
      saved === undefined ||
      now - saved.at >= IDLE_HEARTBEAT_MS ||
      (unsaved !== undefined &&
        (now - unsaved.since >= maxUnsavedMs || head.number - unsaved.head >= maxUnsavedBlocks));
    for (const step of steps) {
      cursors?.set(step.consumer.stream, step.to);
      reached.set(step.consumer, step.to);
    }
    // The window, the moved cursors and the busy streams' blocks in one transaction: one commit a tick
    // at most, not one a stream.
    const windowChange = () => ({
      from: unsaved?.reorgFrom,
      added: unsaved?.dirtyFrom === undefined ? [] : window!.range(unsaved.dirtyFrom, head.number),
      pruneTo,
      head,
      finalized,
      nodeFinalized: verdict.state.nodeFinalized,
    });
    last = { key, change: windowChange() };
    if (write) {
      await commitSteps(
        busy.map((step) => ({ step, event: events[steps.indexOf(step)]! })),
        last.change,
      );
      saved = { key, at: Date.now(), head: head.number };
      unsaved = undefined;
      storedFinal = finalized;
    }
    known = verdict.state;
    let caughtUp = true;
    for (const consumer of consumers) {
      const cursor = reached.get(consumer)!;
      if (cursor.number < head.number) caughtUp = false;
      // The evidence block is never above the final block as stored (see MAX_UNSAVED_MS).
      const final = Math.min(finalized, storedFinal);
      const evidence = () => evidenceAt(Math.min(final, cursor.number), cursor);
      await consumer.afterTick?.({
        head,
        finalized: final,
        cursor,
        evidence,
        transaction,
        read,
      } satisfies TickContext);
    }
    return { head, finalized, caughtUp, ...(sync.kind === 'reorg' ? { reorg: sync.ancestor } : {}) };
  }

  /**
   * The node contradicts itself: logged at error level (once per problem) and shown to operators; no
   * consumer hears of this tick, so nothing is settled, released or sent on the node's word until it
   * is consistent again.
   */
  async function distrust(
    head: BlockHeader,
    nodeFinalized: number | null,
    verdict: Extract<FinalityVerdict, { ok: false }>,
  ): Promise<TickResult> {
    if (problem !== verdict.problem) {
      log.error('the node is inconsistent; nothing settles on this network until it is consistent again', {
        problem: verdict.problem,
        head: head.number,
        nodeFinalized,
        final: verdict.state.final,
      });
      problem = verdict.problem;
    }
    await transaction((tx) => saveNodeProblem(tx, networkId, head, verdict.problem));
    saved = undefined;
    return { head, finalized: verdict.state.final, caughtUp: true, inconsistent: verdict.problem };
  }

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
    cursors = stored = undefined;
  }

  /**
   * Brings a consumer up to where the tick's shared step starts: final blocks far behind are fed by
   * range in transactions of their own, a cursor off the followed chain is rewound; what is left (the
   * window's blocks, or a short final range of a window-less stream) is the step it takes with the
   * others in {@link commitSteps}.
   */
  async function prepare(
    consumer: Consumer,
    head: BlockHeader,
    finalized: number,
    floor: number,
  ): Promise<{ cursor: BlockHeader; step?: Step }> {
    let { cursor, expected } = await startingCursor(consumer, head);
    const budgetEnd = cursor.number + (deps.maxBlocksPerTick ?? MAX_BLOCKS_PER_TICK);
    const windowless = window!.start === undefined && floor > head.number;
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
      let next = readAhead(chunks);
      for (let item = await next; item; item = await next) {
        next = readAhead(chunks);
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
        await applying([consumer], (tx) => apply(tx, consumer, expected, event));
        cursor = expected = to;
        cursors?.set(consumer.stream, to);
        stored?.set(consumer.stream, to);
      }
    }
    if (cursor.number < floor - 1) return { cursor }; // still in the final range: next tick
    if (!(await onFollowedChain(cursor, floor, head))) {
      // The cursor's block is not the canonical block at its height (a crash between a window update
      // and a rewind, a window reread from the database, a head that went below it): a reorganisation,
      // found by hash. Start the stream again from the last final block (below the cursor's own);
      // every handler is idempotent.
      const base = await finalHeader(Math.min(floor - 1, cursor.number - 1));
      log.warn('stream cursor is off the followed chain; rewinding to the last final block', {
        stream: consumer.stream,
        cursor: cursor.number,
        to: base.number,
      });
      await rewind(consumer, base, head);
      return { cursor: base };
    }
    const blocks = window!.range(cursor.number + 1, Math.min(head.number, budgetEnd));
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

  /** Every stream whose cursor moved in memory since it was stored, compare-and-set against that. */
  function pendingMoves(): CursorMove[] {
    const moves: CursorMove[] = [];
    for (const [stream, block] of cursors ?? []) {
      const from = stored?.get(stream) ?? null;
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
    windowChange: Parameters<typeof saveWindow>[2],
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
        stored?.set(step.consumer.stream, step.to);
      }
      const rest = moves.filter((m) => !busy.some((b) => b.step.consumer.stream === m.stream));
      await transaction((tx) => write(tx, rest));
    }
    for (const move of moves) stored?.set(move.stream, move.block);
  }

  /** Writes what idle ticks left in memory (a clean stop): the cursors and the window, if anything. */
  async function flush(): Promise<void> {
    if (!unsaved || !last || !saved) return;
    const change = { ...last.change, from: unsaved.reorgFrom };
    const { dirtyFrom } = unsaved;
    if (dirtyFrom !== undefined && window) change.added = window.range(dirtyFrom, change.head.number);
    await commitSteps([], change);
    saved = { key: last.key, at: Date.now(), head: change.head.number };
    unsaved = undefined;
    storedFinal = change.finalized;
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
      const blocks = window!.range(from(inWindow), to);
      const perBlock = await source.blockLogs(
        filter(inWindow),
        blocks.map((b) => b.hash),
      );
      logs.push(...perBlock.flat());
    }
    return logs;
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

  /**
   * Whether the cursor is a block of the followed chain, by hash: the window's block at its height (or
   * the parent of the window's first block), else the node's canonical block there.
   */
  async function onFollowedChain(cursor: BlockHeader, floor: number, head: BlockHeader): Promise<boolean> {
    if (cursor.number < 0) return true;
    const expected =
      cursor.number >= floor ? window!.get(cursor.number)?.hash : window!.get(floor)?.parentHash;
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
    if (!cursors || !stored) {
      stored = await loadCursors(deps.fork(), networkId);
      cursors = new Map(stored);
    }
    const expected = stored.get(consumer.stream) ?? null;
    const cursor = cursors.get(consumer.stream);
    if (cursor && expected) return { cursor, expected };
    const start = Math.max(0, Math.min(consumer.startBlock(head), head.number));
    const begin =
      start === 0 ? { number: -1, hash: '', parentHash: '', timestamp: 0 } : await finalHeader(start - 1);
    return { cursor: begin, expected: null };
  }

  /** The header of final block `number` (the cursor's own when it is the cursor), read once. */
  async function evidenceAt(number: number, cursor: BlockHeader): Promise<BlockHeader | undefined> {
    if (number < 0) return undefined;
    if (number === cursor.number && cursor.timestamp > 0) return cursor;
    if (evidenceHeader?.number !== number)
      evidenceHeader = window?.get(number) ?? (await finalHeader(number));
    return evidenceHeader;
  }

  /** The next final chunk with the header of its last block, or null when the range is done. */
  async function readAhead(
    chunks: AsyncGenerator<LogChunk>,
  ): Promise<{ chunk: LogChunk; to: BlockHeader } | null> {
    const next = await chunks.next();
    if (next.done) return null;
    const [to] = await source.headers([next.value.toBlock]);
    if (!to) throw new Error(`network ${networkId}: final block ${next.value.toBlock} has no header`);
    return { chunk: next.value, to };
  }

  async function finalHeader(number: number): Promise<BlockHeader> {
    if (number < 0) return { number: -1, hash: '', parentHash: '', timestamp: 0 };
    const [header] = await source.headers([number]);
    if (!header) throw new Error(`network ${networkId}: block ${number} has no header`);
    return header;
  }

  return { network: deps.network, tick, flush };
}

type BlockEvent = Extract<FollowerEvent, { type: 'block' }>;

/** A stream's part of a tick's shared transaction: its blocks after `cursor` up to `to`. */
interface Step {
  consumer: Consumer;
  /** The stream's cursor: the step's blocks start after it. */
  after: BlockHeader;
  /** The stream's cursor as stored, which the move compares with (null: the step inserts it). */
  expected: BlockHeader | null;
  /** `window`: unfinalized blocks, read by hash; `final`: a short range of final blocks, read by range. */
  kind: 'window' | 'final';
  to: BlockHeader;
}
