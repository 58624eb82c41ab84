import { type Contract, id } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EvmLog } from '../../src/chains/evm/index.ts';
import { createTronHttp } from '../../src/chains/tron/http.ts';
import { TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';
import { createFollower } from '../../src/followers/follower.ts';
import { tronSource } from '../../src/followers/tron-source.ts';
import type { Consumer } from '../../src/followers/types.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import {
  deployToken,
  fundedWallet,
  mine,
  TEST_SOLIDIFIED_LAG,
  type TronTestChain,
  tronChain,
} from '../tron/support.ts';

/** A follower of a Tron network (the facade over anvil): solidified blocks only, each log once. */

let t: TestApp;
let chain: TronTestChain;
beforeAll(async () => {
  t = await startTestApp();
  chain = await tronChain();
});
afterAll(() => t?.close());

it('follows TRC-20 Transfer logs up to the solidified block, never beyond, each once', async () => {
  const { address: token, contract } = await deployToken(chain.provider);
  const alice = await fundedWallet(chain.provider);
  const start = (await chain.provider.getBlockNumber()) + 1;
  const minted: string[] = [];
  for (let i = 0; i < 4; i++) {
    const receipt = await (await (contract.mint as Contract['mint'])(alice.address, BigInt(100 + i))).wait();
    minted.push(receipt!.hash.toLowerCase());
  }
  const logs: EvmLog[] = [];
  const finalized: number[] = [];
  const consumer: Consumer = {
    stream: 'transfers',
    filter: { address: token, topics: [id('Transfer(address,address,uint256)')] },
    startBlock: () => start,
    async handle(_tx, event) {
      if (event.type === 'block') logs.push(...event.logs);
      if (event.type === 'finalize') finalized.push(event.block);
      expect(event.type).not.toBe('reorg');
    },
  };
  const network = { id: `tron${Date.now()}`, chainId: TRON_CHAIN_ID, rpcUrls: [chain.facade.url] };
  const follower = createFollower({
    network,
    source: tronSource(createTronHttp({ network })),
    consumers: [consumer],
    fork: () => t.app.fork(),
    fence: async () => {},
    logger: t.app.logger,
  });

  // The last mint is not solidified yet: it is not followed yet.
  const first = await follower.tick();
  expect(first.finalized).toBe(first.head.number);
  const head = await chain.provider.getBlockNumber();
  expect(first.head.number).toBe(head - TEST_SOLIDIFIED_LAG);
  expect(logs.every((l) => l.blockNumber <= first.head.number)).toBe(true);
  expect(logs.map((l) => l.transactionHash)).not.toContain(minted.at(-1));

  await mine(chain.provider, TEST_SOLIDIFIED_LAG);
  await follower.tick();
  await follower.tick();
  expect(logs.map((l) => l.transactionHash)).toEqual(minted);
  expect(logs.every((l) => l.address === token.toLowerCase() && l.topics.length === 3)).toBe(true);
  expect(Math.max(...finalized)).toBeGreaterThanOrEqual(logs.at(-1)!.blockNumber);
});
