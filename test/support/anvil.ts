import { type AnvilNode, startAnvil } from '../../src/chains/anvil.ts';

/** Chain id of the per-worker test chain; distinct from any public chain. */
export const TEST_CHAIN_ID = 31337;

let node: Promise<AnvilNode> | undefined;

/**
 * The anvil node of this test worker: started on first use, shared by every test file the worker
 * runs, killed when the worker exits. Tests isolate themselves by deploying their own contracts
 * (or using `evm_snapshot`/`evm_revert`), never by starting a node per test.
 */
export function workerAnvil(): Promise<AnvilNode> {
  node ??= startAnvil({ chainId: TEST_CHAIN_ID });
  return node;
}

/** A second node for tests that need two chains (failover, multi-network). Started on first use. */
const extra = new Map<string, Promise<AnvilNode>>();
export function workerAnvilNamed(name: string, chainId: number): Promise<AnvilNode> {
  let n = extra.get(name);
  if (!n) {
    n = startAnvil({ chainId });
    extra.set(name, n);
  }
  return n;
}
