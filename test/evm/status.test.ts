import { hexlify, randomBytes } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEvmClient, type EvmClient } from '../../src/chains/evm/client.ts';
import { AppError } from '../../src/errors.ts';
import { workerAnvilNamed } from '../support/anvil.ts';
import {
  deployRuntime,
  EMITTER_RUNTIME,
  freshAddress,
  fundedWallet,
  networkOf,
  REVERTER_RUNTIME,
  type TestChain,
  testChain,
} from './support/chain.ts';

/**
 * A node of our own with automine off, so a transaction can sit in the mempool for as long as the test
 * needs; blocks are mined explicitly with evm_mine.
 */
const MEMPOOL_CHAIN_ID = 31_338;

let chain: TestChain;
let client: EvmClient;

beforeAll(async () => {
  chain = await testChain(await workerAnvilNamed('evm-mempool', MEMPOOL_CHAIN_ID));
  await chain.provider.send('evm_setAutomine', [false]);
  client = createEvmClient({ network: networkOf(chain.node, [chain.node.rpcUrl]) });
});

const mine = (blocks = 1) => chain.provider.send('anvil_mine', [`0x${blocks.toString(16)}`]);

/** Deploys with automine off: keeps mining until the deployment lands (no guessing how long it takes). */
async function deployed(runtime: string): Promise<string> {
  const deployer = await fundedWallet(chain.provider);
  let done = false;
  const pending = deployRuntime(deployer, runtime).finally(() => {
    done = true;
  });
  while (!done) {
    await mine();
    await new Promise((r) => setTimeout(r, 20));
  }
  return pending;
}

describe('transaction status', () => {
  it('follows a transaction from pending to confirmed, counting confirmations', async () => {
    const sender = await fundedWallet(chain.provider);
    const sent = await sender.sendTransaction({ to: freshAddress(), value: 1n, gasLimit: 21_000n });
    expect(await client.getTxState(sent.hash)).toEqual({ status: 'pending', confirmations: 0 });
    expect(await client.getReceipt(sent.hash)).toBeNull();
    expect(await client.getTransaction(sent.hash)).toMatchObject({
      hash: sent.hash,
      blockNumber: null,
      value: 1n,
      nonce: 0,
    });

    await mine();
    const state = await client.getTxState(sent.hash);
    expect(state).toMatchObject({ status: 'confirmed', confirmations: 1 });
    await mine(4);
    expect(await client.getTxState(sent.hash)).toEqual({ ...state, confirmations: 5 });
    const receipt = await client.getReceipt(sent.hash);
    expect(receipt).toMatchObject({
      hash: sent.hash,
      success: true,
      blockNumber: state.blockNumber,
      logs: [],
    });
    const tx = await client.getTransaction(sent.hash);
    expect(tx?.blockNumber).toBe(state.blockNumber);
  });

  it('reports a mined revert as failed', async () => {
    const reverter = await deployed(REVERTER_RUNTIME);
    const sender = await fundedWallet(chain.provider);
    const sent = await sender.sendTransaction({ to: reverter, data: '0x01', gasLimit: 50_000n });
    await mine();
    expect(await client.getTxState(sent.hash)).toMatchObject({ status: 'failed', confirmations: 1 });
    expect(await client.getReceipt(sent.hash)).toMatchObject({ success: false });
  });

  it('returns receipt logs', async () => {
    const emitter = await deployed(EMITTER_RUNTIME);
    const sender = await fundedWallet(chain.provider);
    const topic = hexlify(randomBytes(32));
    const sent = await sender.sendTransaction({ to: emitter, data: topic, gasLimit: 50_000n });
    await mine();
    const receipt = await client.getReceipt(sent.hash);
    expect(receipt?.logs).toEqual([
      expect.objectContaining({ address: emitter, topics: [topic], logIndex: 0, transactionHash: sent.hash }),
    ]);
  });

  it('reports a hash the network does not know as not_found, and refuses a malformed hash', async () => {
    const unknown = hexlify(randomBytes(32));
    expect(await client.getTxState(unknown)).toEqual({ status: 'not_found', confirmations: 0 });
    expect(await client.getTransaction(unknown)).toBeNull();
    expect(await client.getReceipt(unknown)).toBeNull();
    await expect(client.getTxState('0x1234')).rejects.toMatchObject({ code: 'validation' });
  });

  it('reports a dropped transaction as not_found', async () => {
    const sender = await fundedWallet(chain.provider);
    const sent = await sender.sendTransaction({ to: freshAddress(), value: 1n, gasLimit: 21_000n });
    expect((await client.getTxState(sent.hash)).status).toBe('pending');
    await chain.provider.send('anvil_dropTransaction', [sent.hash]);
    expect((await client.getTxState(sent.hash)).status).toBe('not_found');
  });

  it('is unavailable, not hanging, when the node is unreachable', async () => {
    const down = createEvmClient({
      network: networkOf(chain.node, ['http://127.0.0.1:1']),
      rpc: { retries: 0 },
    });
    const error = await down.getTxState(hexlify(randomBytes(32))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'unavailable' });
  });
});
