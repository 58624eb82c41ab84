/**
 * What the service treats as final on a network, decided by the follower each tick from what the node
 * says and what the service already holds final. Never the node's word alone: a block is final only at
 * least `depth` blocks behind the head *and* at or below the node's `finalized` block, the more
 * conservative of the two (Hardhat's node, several providers and chains answer `finalized` with their
 * latest block). The final block never moves back; a node whose answers would move it back is lying
 * (or broken, or a lagging fail-over), and nothing is settled on it until it is consistent again.
 */

/** What the follower holds about a network's finality between ticks (chain_followers). */
export interface FinalityState {
  /** The service's final block: everything at or below it was settled as final. */
  final: number;
  /** The highest `finalized` block the node has reported (null: it never served one). */
  nodeFinalized: number | null;
}

export type FinalityVerdict =
  | { ok: true; state: FinalityState }
  /** The node contradicts what it said before; `state` is unchanged. */
  | { ok: false; problem: string; state: FinalityState };

/**
 * Judges one reading of the node: its head and its `finalized` block (null: it serves none), against
 * `known` (undefined before the first tick of the network). A `finalized` block below one the node
 * reported before, or a head below the service's final block, is a problem, and the state stays as it
 * was: consistent again once the node is back at or above both.
 */
export function judgeFinality(
  known: FinalityState | undefined,
  head: number,
  nodeFinalized: number | null,
  depth: number,
): FinalityVerdict {
  const state: FinalityState = known ?? { final: -1, nodeFinalized: null };
  if (nodeFinalized !== null && state.nodeFinalized !== null && nodeFinalized < state.nodeFinalized) {
    return {
      ok: false,
      problem: `the node's finalized block went back from ${state.nodeFinalized} to ${nodeFinalized}`,
      state,
    };
  }
  if (head < state.final) {
    return {
      ok: false,
      problem: `the node's head ${head} is below block ${state.final}, which the service already treats as final`,
      state,
    };
  }
  const byNode = nodeFinalized === null ? head : Math.min(nodeFinalized, head);
  const byDepth = head - depth;
  return {
    ok: true,
    state: {
      final: Math.max(state.final, Math.min(byNode, byDepth), -1),
      nodeFinalized: nodeFinalized ?? state.nodeFinalized,
    },
  };
}

/**
 * The lowest block of the reorg window: above the final block, and low enough to hold the `window`
 * newest blocks whatever finality says (the deepest confirmation tier), at most `cap` blocks deep.
 */
export function windowFloor(head: number, final: number, window: number, cap: number): number {
  return Math.max(Math.min(final + 1, head - window + 1), head - Math.max(cap, window) + 1, 0);
}
