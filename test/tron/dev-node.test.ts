/** The dev stack's `tron` network: interval mining keeps the solidified head moving with no traffic. */
import { describe, expect, it } from 'vitest';
import { createTronClient } from '../../src/chains/tron/index.ts';
import { startTronDevNode, TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';

const LAG = 2;
const POLL_MS = 100;

describe('startTronDevNode', () => {
  it('runs anvil with the Tron chain id behind the facade, and solidifies blocks over time', async () => {
    const node = await startTronDevNode({ blockTime: 1, solidifiedLag: LAG });
    try {
      const chainId = await fetch(node.anvilRpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      }).then((r) => r.json() as Promise<{ result: string }>);
      expect(Number(chainId.result)).toBe(TRON_CHAIN_ID);
      const client = createTronClient({
        network: { id: 'tron', chainId: TRON_CHAIN_ID, rpcUrls: [node.url] },
      });
      // Without any transaction, blocks keep coming, so the solidified head passes block 1.
      while ((await client.getSolidifiedBlockNumber()) < 1) await new Promise((r) => setTimeout(r, POLL_MS));
      const [head, solid] = await Promise.all([client.getBlockNumber(), client.getSolidifiedBlockNumber()]);
      expect(head - solid).toBeGreaterThanOrEqual(LAG - 1); // a block may land between the two reads
      expect(head - solid).toBeLessThanOrEqual(LAG);
    } finally {
      await node.stop();
    }
  });
});
