import type { saveWindow } from './store.ts';
import type { BlockWindow } from './window.ts';

/**
 * A tick that found the chain as it was writes nothing, except this often the follower's `ticked_at`
 * (the liveness the console and `gateway_follower_seconds_since_tick` show).
 */
export const IDLE_HEARTBEAT_MS = 60_000;
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

/** What a tick writes of the window and of what the follower saw (store.ts `saveWindow`). */
export type WindowChange = Parameters<typeof saveWindow>[2];

/**
 * The follower's lazy writes: what it last wrote, what idle ticks left in memory only, and whether a
 * tick writes (see MAX_UNSAVED_MS). Only the tick and `flush` change it, and only `wrote` after their
 * transaction committed, so a failed write leaves everything to be written again.
 */
export class LazySave {
  /** What the last saved tick recorded, so an unchanged chain costs no write (but a heartbeat). */
  saved: { key: string; at: number; head: number } | undefined;
  /**
   * What idle ticks left unwritten: since when, from which window block (the lowest one added since the
   * last write) and from which block a reorganisation replaced the stored window's rows.
   */
  unsaved: { since: number; head: number; dirtyFrom?: number; reorgFrom?: number } | undefined;
  /** The last consistent tick's window change, for `flush` (a Tron window is empty: no tip to use). */
  last: { key: string; change: WindowChange } | undefined;
  /** The final block as stored (chain_followers): the after-tick passes' evidence never passes it. */
  storedFinal = -1;

  /** `maxMs` and `maxBlocks`: MAX_UNSAVED_MS and MAX_UNSAVED_BLOCKS unless a test sets them. */
  constructor(
    private readonly maxMs: number,
    private readonly maxBlocks: number,
  ) {}

  /** Something is left to write from now on (at `head`): the bound starts counting, if not yet. */
  private begin(head: number) {
    this.unsaved ??= { since: Date.now(), head: this.saved?.head ?? head };
    return this.unsaved;
  }

  /** The window was reread from the database: its rows are as stored again. */
  windowReloaded(): void {
    if (this.unsaved) this.unsaved.dirtyFrom = this.unsaved.reorgFrom = undefined;
  }

  /** The window gained blocks from `from` up: their rows are to be written. */
  added(from: number, head: number): void {
    const unsaved = this.begin(head);
    unsaved.dirtyFrom = Math.min(unsaved.dirtyFrom ?? Infinity, from);
  }

  /** A reorganisation replaced the stored window's rows from `from` up. */
  reorged(from: number, head: number): void {
    const unsaved = this.begin(head);
    unsaved.reorgFrom = Math.min(unsaved.reorgFrom ?? Infinity, from);
  }

  /** The tick saw a chain other than the one last written (`key`), or moved cursors. */
  changed(key: string, moved: boolean, head: number): void {
    if (key !== this.saved?.key || moved) this.begin(head);
  }

  /**
   * Whether this tick writes: a busy stream's blocks or a reorganisation always, nothing written yet
   * (or a problem written since), the heartbeat, or what idle ticks left waited past the bound.
   */
  due(busy: boolean, reorg: boolean, head: number): boolean {
    const now = Date.now();
    const { saved, unsaved } = this;
    return (
      busy ||
      reorg ||
      saved === undefined ||
      now - saved.at >= IDLE_HEARTBEAT_MS ||
      (unsaved !== undefined && (now - unsaved.since >= this.maxMs || head - unsaved.head >= this.maxBlocks))
    );
  }

  /**
   * The tick's window change, with what idle ticks left unwritten (the window's rows from the lowest
   * block added since the last write), kept for `flush`.
   */
  record(key: string, window: BlockWindow, tick: Omit<WindowChange, 'from' | 'added'>): WindowChange {
    const { unsaved } = this;
    const change = {
      from: unsaved?.reorgFrom,
      added: unsaved?.dirtyFrom === undefined ? [] : window.range(unsaved.dirtyFrom, tick.head.number),
      ...tick,
    };
    this.last = { key, change };
    return change;
  }

  /** What a clean stop has to write (the last tick's change, with what idle ticks left), if anything. */
  pending(window: BlockWindow | undefined): WindowChange | undefined {
    const { unsaved, last, saved } = this;
    if (!unsaved || !last || !saved) return undefined;
    const change = { ...last.change, from: unsaved.reorgFrom };
    const { dirtyFrom } = unsaved;
    if (dirtyFrom !== undefined && window) change.added = window.range(dirtyFrom, change.head.number);
    return change;
  }

  /** A transaction wrote the tick `key` saw: nothing is left unwritten, `finalized` is stored. */
  wrote(key: string, head: number, finalized: number): void {
    this.saved = { key, at: Date.now(), head };
    this.unsaved = undefined;
    this.storedFinal = finalized;
  }

  /** The node's problem was written instead of the window: the next consistent tick writes (clears it). */
  distrusted(): void {
    this.saved = undefined;
  }
}
