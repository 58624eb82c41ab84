import type { NetworkConfig } from '../chains/networks.ts';
import type { BlockHeader } from '../chains/types.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import { type FinalityState, type FinalityVerdict, judgeFinality, windowFloor } from './finality.ts';
import { createHeaders } from './headers.ts';
import { LazySave, MAX_UNSAVED_BLOCKS, MAX_UNSAVED_MS } from './lazy-save.ts';
import { createStepping, type FollowerMemory, type Step } from './stepping.ts';
import { loadFinality, loadWindow, saveNodeProblem } from './store.ts';
import type { ChainSource, Consumer, TickContext } from './types.ts';
import { BlockWindow } from './window.ts';
import { createWrites } from './writes.ts';

export { IDLE_HEARTBEAT_MS, MAX_UNSAVED_BLOCKS, MAX_UNSAVED_MS } from './lazy-save.ts';
export { SHORT_RANGE_BLOCKS } from './stepping.ts';

/**
 * The chain follower of one network: each `tick()` brings the hash-linked window of unfinalized
 * headers up to the head, tells every consumer about a reorganisation first (rewinding its cursor to
 * the common ancestor), then feeds it the blocks after its cursor with its logs, one transaction per
 * chunk together with the cursor. Final blocks are read by range; unfinalized ones by block hash, so
 * logs and headers always describe the same chain. What is final is the service's decision, never the
 * node's word alone (finality.ts); the window always holds the deepest confirmation tier's blocks, and a
 * node that contradicts itself is reported and settles nothing. Only the leader of a network ticks;
 * `fence` refuses a transaction of a follower that lost its leadership (leadership.ts).
 *
 * Around it: stepping.ts brings each stream to its part of the tick, writes.ts holds the transactions
 * (what is written in which), lazy-save.ts decides whether a tick writes at all (idle blocks wait in
 * memory), headers.ts reads final headers and the evidence block.
 */

/** Blocks a stream may advance per tick, so one tick of a long backfill stays short. */
export const MAX_BLOCKS_PER_TICK = 100_000;
/**
 * Unfinalized blocks kept at most (unless the deepest confirmation tier needs more); deeper ones are
 * read by range, as if final, but settle nothing until the service's final block reaches them.
 */
export const MAX_WINDOW_BLOCKS = 2_048;

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
  /** The window and the cursors, in memory; a failure sets one back to undefined (reread next tick). */
  const memory: FollowerMemory = { window: undefined, cursors: undefined, stored: undefined };
  /** What the service holds final (loaded on the first tick; chain_followers keeps it across leaders). */
  let known: FinalityState | undefined;
  /** The node's current inconsistency, once logged. */
  let problem: string | undefined;
  const lazy = new LazySave(deps.maxUnsavedMs ?? MAX_UNSAVED_MS, deps.maxUnsavedBlocks ?? MAX_UNSAVED_BLOCKS);
  const headers = createHeaders(source, networkId);
  const { transaction, applying, rewind, commitSteps, apply } = createWrites({
    networkId,
    fork: deps.fork,
    fence: deps.fence,
    log,
    memory,
  });

  /** A read for a consumer's after-tick work: no transaction, no fence. */
  const read = <T>(work: (em: EntityManager) => Promise<T>) => work(deps.fork());

  const { prepare, stepEvents } = createStepping({
    networkId,
    source,
    fork: deps.fork,
    log,
    maxBlocksPerTick: deps.maxBlocksPerTick ?? MAX_BLOCKS_PER_TICK,
    memory,
    headers,
    applying,
    apply,
    rewind,
  });

  async function tick(): Promise<TickResult> {
    try {
      return await tickOnce();
    } catch (error) {
      // another writer may have moved one (CursorMoved), or a commit failed
      memory.cursors = memory.stored = undefined;
      throw error;
    }
  }

  async function tickOnce(): Promise<TickResult> {
    const head = await source.head();
    const nodeFinalized = await source.nodeFinalized(head);
    if (!known) {
      known = await loadFinality(deps.fork(), networkId);
      lazy.storedFinal = known?.final ?? -1;
    }
    const verdict = judgeFinality(known, head.number, nodeFinalized, source.finality.depth);
    if (!verdict.ok) return distrust(head, nodeFinalized, verdict);
    if (problem) {
      log.warn('the node is consistent again; settling resumes', { head: head.number, nodeFinalized });
      problem = undefined;
    }
    const finalized = verdict.state.final;
    const floor = windowFloor(head.number, finalized, source.finality.window, MAX_WINDOW_BLOCKS);
    if (!memory.window) {
      memory.window = new BlockWindow(await loadWindow(deps.fork(), networkId, floor));
      lazy.windowReloaded(); // as stored again
    }
    const window = memory.window;
    let sync: Awaited<ReturnType<BlockWindow['sync']>>;
    try {
      sync = await window.sync(source, head, floor);
    } catch (error) {
      memory.window = undefined; // reread from the database next time
      throw error;
    }
    if (sync.kind !== 'unchanged' && sync.added.length > 0) lazy.added(sync.added[0]!.number, head.number);
    if (sync.kind === 'reorg') {
      const settled = known?.final ?? -1;
      const fields = { ancestor: sync.ancestor.number, head: head.number, final: settled };
      // Deeper than what was already final: what was settled there stays settled (consumers say what).
      if (sync.ancestor.number < settled) log.error('reorganisation below the final block', fields);
      else log.warn('reorganisation', fields);
      lazy.reorged(sync.ancestor.number + 1, head.number);
      const ahead = new Map(memory.cursors ?? []);
      for (const consumer of consumers) await rewind(consumer, sync.ancestor, head, ahead);
    }
    window.prune(floor - 1);
    const pruneTo = window.start === undefined ? head.number : window.start - 1;
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
    lazy.changed(key, steps.length > 0, head.number);
    const write = lazy.due(busy.length > 0, sync.kind === 'reorg', head.number);
    for (const step of steps) {
      memory.cursors?.set(step.consumer.stream, step.to);
      reached.set(step.consumer, step.to);
    }
    // The window, the moved cursors and the busy streams' blocks in one transaction: one commit a tick
    // at most, not one a stream.
    const change = lazy.record(key, window, {
      pruneTo,
      head,
      finalized,
      nodeFinalized: verdict.state.nodeFinalized,
    });
    if (write) {
      await commitSteps(
        busy.map((step) => ({ step, event: events[steps.indexOf(step)]! })),
        change,
      );
      lazy.wrote(key, head.number, finalized);
    }
    known = verdict.state;
    let caughtUp = true;
    for (const consumer of consumers) {
      const cursor = reached.get(consumer)!;
      if (cursor.number < head.number) caughtUp = false;
      // The evidence block is never above the final block as stored (see MAX_UNSAVED_MS).
      const final = Math.min(finalized, lazy.storedFinal);
      const evidence = () => headers.evidenceAt(Math.min(final, cursor.number), cursor, memory.window);
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
    lazy.distrusted();
    return { head, finalized: verdict.state.final, caughtUp: true, inconsistent: verdict.problem };
  }

  /** Writes what idle ticks left in memory (a clean stop): the cursors and the window, if anything. */
  async function flush(): Promise<void> {
    const change = lazy.pending(memory.window);
    if (!change) return;
    await commitSteps([], change);
    lazy.wrote(lazy.last!.key, change.head.number, change.finalized);
  }

  return { network: deps.network, tick, flush };
}
