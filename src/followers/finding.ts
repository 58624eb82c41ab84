import type { BlockHeader } from '../chains/types.ts';

/**
 * What a consumer's block transaction found out about its own rows (the lowest block at which
 * something waits to settle, whether any execution waits for its depth), remembered so that later
 * blocks can skip their queries and, through `Consumer.idle`, the follower its block transaction. One
 * mechanism for every stream, safe by the follower's contract:
 * - found inside a block transaction (`begin` at its block event, then `found`), it is trusted only
 *   once the follower reports the stream's cursor at that block: `committed(ctx.cursor)` in
 *   `afterTick`, which the follower calls only after the tick's transactions committed;
 * - a transaction that rolled back drops it (the follower calls `Consumer.rolledBack`, which calls
 *   `rollback`), so a later tick that skips the block event never promotes a rolled-back finding;
 * - the stream's logs and reorganisations `forget` it, as does anything else that writes the rows it
 *   summarises (an after-tick pass that records what the stream missed);
 * - a consumer lives only as long as its process leads the network (daemons/chain-followers.ts), so
 *   no other leader wrote those rows meanwhile.
 */
export class Finding<T> {
  #known: T | undefined;
  #pending: { value?: T; at: string } | undefined;

  /** What a committed transaction found; undefined: nothing is known (look). */
  get value(): T | undefined {
    return this.#known;
  }

  /** What this tick's block transaction found, not yet trusted beyond its own block. */
  get fresh(): T | undefined {
    return this.#pending?.value;
  }

  /** At a block event (inside its transaction): what it finds is about `block`. */
  begin(block: Pick<BlockHeader, 'hash'>): void {
    this.#pending = { at: block.hash };
  }

  /** Inside the block transaction begun last: what it found (trusted once it committed). */
  found(value: T): void {
    if (this.#pending) this.#pending.value = value;
  }

  /** What a transaction that already committed found (an after-tick pass): trusted at once. */
  know(value: T): void {
    this.#known = value;
  }

  /** Something wrote what this summarises, or may have: the next block looks again. */
  forget(): void {
    this.#known = this.#pending = undefined;
  }

  /** The transaction that found the pending value rolled back. */
  rollback(): void {
    this.#pending = undefined;
  }

  /** After a tick: trusts what the block transaction found if the stream's cursor is at its block. */
  committed(cursor: Pick<BlockHeader, 'hash'>): void {
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending && 'value' in pending && pending.at === cursor.hash) this.#known = pending.value;
  }
}
