/**
 * A misbehaving node for finality tests: a JSON-RPC proxy in front of anvil that answers like nodes
 * seen in the wild. Hardhat's node (and several providers and chains) answers the `finalized` tag with
 * its latest block; a node may move its `finalized` block backwards, or (a lagging fail-over) report a
 * head far behind the one it served before. Reorganisations are made on anvil itself
 * (`evm_snapshot`/`evm_revert`, `anvil_reorg`); the proxy only rewrites what the node says.
 */
import { type JsonRpcCall, type RpcProxy, startProxy } from '../evm/support/servers.ts';

export interface LyingNode {
  /** Give this to the service (network file `rpcUrls`); tests keep talking to anvil directly. */
  url: string;
  /**
   * What `finalized` (and `safe`) answer: `honest` forwards anvil's own; `latest` answers the latest
   * block (Hardhat); a number answers that block, whatever the chain did.
   */
  finalized: 'honest' | 'latest' | number;
  /** When set, the head (`latest`, `eth_blockNumber`) is this block: a node that went back. */
  head: number | undefined;
  /** Calls of `finalized` answered so far (a test checks the service asked). */
  readonly finalizedCalls: number;
  close(): Promise<void>;
}

const hex = (n: number) => `0x${n.toString(16)}`;

export async function lyingNode(target: string): Promise<LyingNode> {
  const proxy: RpcProxy = await startProxy(target);
  let finalizedCalls = 0;
  const node: LyingNode = {
    url: proxy.url,
    finalized: 'latest',
    head: undefined,
    get finalizedCalls() {
      return finalizedCalls;
    },
    close: () => proxy.close(),
  };
  const forward = async (call: JsonRpcCall, params: unknown[]) => {
    const res = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...call, params }),
    });
    return (await res.json()) as object;
  };
  proxy.hook = (call) => {
    const params = (call.params ?? []) as unknown[];
    if (call.method === 'eth_blockNumber' && node.head !== undefined) {
      return { jsonrpc: '2.0', id: call.id, result: hex(node.head) };
    }
    if (call.method !== 'eth_getBlockByNumber') return undefined;
    const tag = params[0];
    if (tag === 'latest' && node.head !== undefined)
      return forward(call, [hex(node.head), ...params.slice(1)]);
    if (tag !== 'finalized' && tag !== 'safe') return undefined;
    finalizedCalls++;
    if (node.finalized === 'honest') return undefined;
    const answer =
      node.finalized === 'latest'
        ? node.head === undefined
          ? 'latest'
          : hex(node.head)
        : hex(node.finalized);
    return forward(call, [answer, ...params.slice(1)]);
  };
  return node;
}
