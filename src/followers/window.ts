import type { BlockHeader } from '../chains/types.ts';
import { unavailable } from '../errors.ts';
import type { ChainSource } from './types.ts';

/**
 * The hash-linked window of unfinalized headers a follower has seen, lowest first. Pure bookkeeping:
 * what to fetch and what the fetched headers mean (extension, or a reorganisation and its common
 * ancestor) is decided here; persistence and events are the follower's.
 */

/** Headers fetched per JSON-RPC batch. */
const HEADER_BATCH = 100;

export type WindowSync =
  | { kind: 'unchanged' }
  | { kind: 'extended'; added: BlockHeader[] }
  /** Blocks above `ancestor` were replaced; `added` is the new canonical chain above it. */
  | { kind: 'reorg'; ancestor: BlockHeader; added: BlockHeader[] };

export class BlockWindow {
  constructor(private blocks: BlockHeader[] = []) {}

  get tip(): BlockHeader | undefined {
    return this.blocks.at(-1);
  }

  get start(): number | undefined {
    return this.blocks[0]?.number;
  }

  get(number: number): BlockHeader | undefined {
    const first = this.start;
    return first === undefined ? undefined : this.blocks[number - first];
  }

  /** The window's headers in [from, to], in order. */
  range(from: number, to: number): BlockHeader[] {
    const first = this.start;
    if (first === undefined) return [];
    return this.blocks.slice(Math.max(0, from - first), Math.max(0, to - first + 1));
  }

  /** Drops headers at or below `finalized`; returns how many. */
  prune(finalized: number): number {
    const keep = this.blocks.findIndex((b) => b.number > finalized);
    const dropped = keep === -1 ? this.blocks.length : keep;
    this.blocks = this.blocks.slice(dropped);
    return dropped;
  }

  /**
   * Brings the window to `head`: appends the headers above its tip when they link onto it, else finds
   * the highest block the window shares with the canonical chain and replaces everything above it.
   * `floor` is the lowest block a fresh window starts at (the first unfinalized one).
   */
  async sync(source: ChainSource, head: BlockHeader, floor: number): Promise<WindowSync> {
    const tip = this.tip;
    if (!tip) {
      const added = await fetchLinked(source, Math.max(floor, 0), head);
      this.blocks = added;
      return added.length ? { kind: 'extended', added } : { kind: 'unchanged' };
    }
    if (head.number === tip.number && head.hash === tip.hash) return { kind: 'unchanged' };
    if (head.number > tip.number) {
      const added = await fetchLinked(source, tip.number + 1, head);
      if (added[0]?.parentHash === tip.hash) {
        this.blocks.push(...added);
        return { kind: 'extended', added };
      }
    }
    // Otherwise the head does not extend the window: another block at the tip's height, or a head
    // below the tip. Blocks above the head are not on the node's chain (a reorganisation back to a
    // shorter chain, or a fail-over to a node that has not seen them): either way nothing may be
    // settled on them, so they are released like any other reorganisation and found again if they
    // come back.
    const ancestor = await this.commonAncestor(source);
    this.blocks = this.blocks.filter((b) => b.number <= ancestor.number);
    const added = await fetchLinked(source, ancestor.number + 1, head);
    if (added.length && added[0]!.parentHash !== ancestor.hash) {
      throw unavailable('the chain changed while the follower was reading it; retrying');
    }
    this.blocks.push(...added);
    return { kind: 'reorg', ancestor, added };
  }

  /** The highest window block that is still canonical; below the window, the block under its start. */
  private async commonAncestor(source: ChainSource): Promise<BlockHeader> {
    const numbers = this.blocks.map((b) => b.number).reverse();
    for (let i = 0; i < numbers.length; i += HEADER_BATCH) {
      const slice = numbers.slice(i, i + HEADER_BATCH);
      const canonical = await source.headers(slice);
      for (const [j, n] of slice.entries()) {
        const mine = this.get(n)!;
        if (canonical[j]?.hash === mine.hash) return mine;
      }
    }
    // The whole window was replaced: the block below it was final when it was pruned.
    const below = (this.start ?? 0) - 1;
    const [header] = await source.headers([Math.max(0, below)]);
    if (!header) throw unavailable(`block ${below} is not available from the node`);
    return header;
  }
}

/**
 * Headers of [from, head.number], checked to form one chain ending in `head`. A batch answered
 * partly from another fork (a node mid-reorganisation, a failover between nodes) does not link and
 * is refused as a transient failure: the next tick reads again.
 */
async function fetchLinked(source: ChainSource, from: number, head: BlockHeader): Promise<BlockHeader[]> {
  if (from > head.number) return [];
  const numbers = Array.from({ length: head.number - from }, (_, i) => from + i);
  const headers: BlockHeader[] = [];
  for (let i = 0; i < numbers.length; i += HEADER_BATCH) {
    const batch = await source.headers(numbers.slice(i, i + HEADER_BATCH));
    for (const h of batch) {
      if (!h) throw unavailable('a block below the head is not available from the node yet');
      headers.push(h);
    }
  }
  headers.push(head);
  for (let i = 1; i < headers.length; i++) {
    if (headers[i]!.parentHash !== headers[i - 1]!.hash) {
      throw unavailable('the chain changed while the follower was reading it; retrying');
    }
  }
  return headers;
}
