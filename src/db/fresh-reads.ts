/**
 * House rule 20: a state change decided from chain data is applied or retried from a fresh read, never
 * dropped. Every transition function writes a row guarded by the version its change was computed from,
 * so a change decided from a snapshot that another transaction (a player action, the relayer recording
 * its broadcast) moved on in between writes nothing. A consumer that ignored that result would move its
 * cursor past the block and never see the evidence again: a paid payout would stay unexecuted and later
 * be failed by its deadline.
 *
 * `untilApplied` runs a decide-and-apply pass again while any change it decided was not applied. The
 * first pass reads as usual (no lock: a concurrent action is rare and must not wait for the follower);
 * later passes read fresh and lock the rows they read (`FOR UPDATE`), so the next write cannot lose.
 * A pass is idempotent by construction (it recomputes from what is now committed), so repeating it
 * is always safe. Only when passes keep losing does it throw, which rolls back the caller's transaction:
 * the follower then reads the same blocks again at its next tick. Nothing is ever silently skipped.
 */

/** Passes before giving up and rolling back (the caller's whole transaction is then retried). */
export const MAX_PASSES = 4;

/** How a pass must read its rows. */
export interface Pass {
  /** 0 for the first pass. */
  index: number;
  /** Read rows again from the database (not the identity map) and lock them: a retry pass. */
  fresh: boolean;
}

/** What one pass decided and could not apply (ids, for the error). */
export type NotApplied = readonly string[];

export class ChangesNotApplied extends Error {
  constructor(
    readonly what: string,
    readonly ids: NotApplied,
  ) {
    super(`${what}: ${ids.length} change(s) kept losing their version race (${ids.slice(0, 5).join(', ')})`);
    this.name = 'ChangesNotApplied';
  }
}

/**
 * Runs `pass` until it returns no unapplied change. `what` names the work in the error thrown after
 * {@link MAX_PASSES} passes.
 */
export async function untilApplied(what: string, pass: (p: Pass) => Promise<NotApplied>): Promise<void> {
  let left: NotApplied = [];
  for (let index = 0; index < MAX_PASSES; index++) {
    left = await pass({ index, fresh: index > 0 });
    if (left.length === 0) return;
  }
  throw new ChangesNotApplied(what, left);
}

/** The ids among `decided` that `applied` does not hold: what a pass must report. */
export function notApplied<T>(decided: readonly T[], applied: ReadonlySet<string>, id: (c: T) => string) {
  return decided.map(id).filter((x) => !applied.has(x));
}
