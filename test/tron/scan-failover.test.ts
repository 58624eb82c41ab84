/**
 * Transfer scanning only up to the solidified block, each transfer exactly once across chunked scans;
 * endpoint failover and bounded failure when the node is gone.
 */
import type { Contract, JsonRpcProvider, TransactionResponse } from 'ethers';
import { utils } from 'tronweb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTronClient, signedFromParts, type Trc20Transfer } from '../../src/chains/tron/index.ts';
import { startTronFacade, TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';
import { AppError } from '../../src/errors.ts';
import {
  deadUrl,
  deployToken,
  fundedWallet,
  hangingServer,
  mine,
  minedTronState,
  TEST_SOLIDIFIED_LAG,
  type TronTestChain,
  tronAccount,
  tronChain,
} from './support.ts';

/** Fast failure settings so a dead endpoint costs milliseconds, not the production 10 s. */
const FAST = { timeoutMs: 300, retries: 0, deadlineMs: 1_500, cooldownMs: 60_000 };

let chain: TronTestChain;

beforeAll(async () => {
  chain = await tronChain();
});

const network = (rpcUrls: string[]) => ({ id: 'tron', chainId: TRON_CHAIN_ID, rpcUrls });

/** Sends several transactions into one block, so a block holds more than one transfer. */
async function inOneBlock(provider: JsonRpcProvider, send: () => Promise<TransactionResponse>[]) {
  await provider.send('evm_setAutomine', [false]);
  try {
    const txs = await Promise.all(send());
    await provider.send('evm_mine', []);
    return Promise.all(txs.map((t) => t.wait()));
  } finally {
    await provider.send('evm_setAutomine', [true]);
  }
}

const key = (t: Pick<Trc20Transfer, 'txId' | 'logIndex'>) => `${t.txId}:${t.logIndex}`;

describe('Tron adapter: Transfer scanning', () => {
  it('returns each transfer once, in solidified blocks only', async () => {
    const client = createTronClient({ network: network([chain.facade.url]) });
    const { address: token, contract, deployer } = await deployToken(chain.provider);
    const other = await deployToken(chain.provider);
    const start = (await chain.provider.getBlockNumber()) + 1;
    const alice = await fundedWallet(chain.provider);
    const bob = tronAccount();
    const carol = tronAccount();

    const expected: Omit<Trc20Transfer, 'blockTimestamp'>[] = [];
    const mint = await (await contract.mint!(alice.address, 1_000n)).wait();
    expected.push({
      txId: mint.hash.slice(2),
      logIndex: 0,
      token,
      from: '0x0000000000000000000000000000000000000000',
      to: alice.address,
      amount: 1_000n,
      block: mint.blockNumber,
    });
    await (await (other.contract.mint as Contract['mint'])(alice.address, 5n)).wait(); // another token: not scanned
    const asAlice = contract.connect(alice) as Contract;
    const nonce = await alice.getNonce();
    const pair = await inOneBlock(chain.provider, () => [
      asAlice.transfer!(bob.evm, 10n, { nonce }),
      asAlice.transfer!(carol.evm, 20n, { nonce: nonce + 1 }),
    ]);
    for (const [i, r] of pair.entries()) {
      expected.push({
        txId: r!.hash.slice(2),
        logIndex: 0,
        token,
        from: alice.address,
        to: i === 0 ? bob.evm : carol.evm,
        amount: i === 0 ? 10n : 20n,
        block: r!.blockNumber,
      });
    }
    // One transfer made the Tron way: built, signed with a Tron key, broadcast through the facade.
    await (await contract.connect(deployer).getFunction('mint')(bob.evm, 7n)).wait();
    const data = contract.interface.encodeFunctionData('transfer', [carol.evm, 3n]);
    const built = await client.buildTrigger({ owner: bob.tron, contract: token, data });
    const sig = (
      utils.crypto.signTransaction(bob.privateKey, { txID: built.tx_id }) as { signature: string[] }
    ).signature[0]!;
    await client.broadcast(signedFromParts(built.raw_transaction, sig));
    const tronTx = await minedTronState(client, built.tx_id);
    const mintBob = (await chain.provider.getBlock(tronTx.blockNumber! - 1, true))!;
    expected.push({
      txId: mintBob.transactions[0]!.slice(2),
      logIndex: 0,
      token,
      from: '0x0000000000000000000000000000000000000000',
      to: bob.evm,
      amount: 7n,
      block: mintBob.number,
    });
    expected.push({
      txId: built.tx_id,
      logIndex: 0,
      token,
      from: bob.evm,
      to: carol.evm,
      amount: 3n,
      block: tronTx.blockNumber!,
    });
    const end = tronTx.blockNumber!;

    // Nothing past the solidified head, however far the caller asks.
    const early = await client.scanTransfers({ fromBlock: start, toBlock: end + 100, tokens: [token] });
    expect(early.solidified).toBe(end - TEST_SOLIDIFIED_LAG);
    expect(early.toBlock).toBeLessThanOrEqual(early.solidified);
    expect(early.transfers.every((t) => t.block <= early.solidified)).toBe(true);
    expect(early.transfers.map(key)).not.toContain(`${built.tx_id}:0`);

    await mine(chain.provider, TEST_SOLIDIFIED_LAG);
    // Scan in small chunks, resuming where each stopped, as a daemon would.
    const seen: Trc20Transfer[] = [];
    let from = start;
    while (from <= end) {
      const page = await client.scanTransfers({
        fromBlock: from,
        toBlock: end,
        tokens: [utils.address.fromHex(`41${token.slice(2)}`)],
        maxBlocks: 2,
      });
      expect(page.toBlock).toBeGreaterThanOrEqual(from);
      seen.push(...page.transfers);
      from = page.toBlock + 1;
    }
    expect(new Set(seen.map(key)).size).toBe(seen.length);
    expect(seen.map(({ blockTimestamp, ...t }) => t)).toEqual(expected);
    expect(seen.every((t) => t.blockTimestamp > 0)).toBe(true);

    // Resuming past the solidified head returns nothing and does not move the cursor.
    const solid = await client.getSolidifiedBlockNumber();
    expect(await client.scanTransfers({ fromBlock: solid + 1, tokens: [token] })).toEqual({
      transfers: [],
      toBlock: solid,
      solidified: solid,
    });
  });
});

describe('Tron adapter: endpoints', () => {
  it('fails over from a dead URL to the next one', async () => {
    const client = createTronClient({ network: network([await deadUrl(), chain.facade.url]), http: FAST });
    expect(await client.getBlockNumber()).toBeGreaterThan(0);
    const [first, second] = client.health();
    expect(first).toMatchObject({ healthy: false });
    expect(second).toMatchObject({ healthy: true });
  });

  it('fails over from a hanging URL within the per-request timeout', async () => {
    const hanging = await hangingServer();
    try {
      const client = createTronClient({ network: network([hanging.url, chain.facade.url]), http: FAST });
      const t0 = Date.now();
      expect(await client.getSolidifiedBlockNumber()).toBeGreaterThanOrEqual(0);
      expect(Date.now() - t0).toBeLessThan(1_500);
    } finally {
      await hanging.close();
    }
  });

  it('is unavailable, in bounded time, when no endpoint answers', async () => {
    const stopped = await startTronFacade({ anvilRpcUrl: chain.anvil.rpcUrl });
    await stopped.stop();
    const hanging = await hangingServer();
    try {
      const client = createTronClient({ network: network([stopped.url, hanging.url]), http: FAST });
      const t0 = Date.now();
      const error = await client.balanceOf(tronAccount().evm, tronAccount().evm).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('unavailable');
      expect(Date.now() - t0).toBeLessThan(2_500);
    } finally {
      await hanging.close();
    }
  });

  it('treats a facade whose chain is gone as degraded and moves on', async () => {
    const orphan = await startTronFacade({ anvilRpcUrl: await deadUrl() });
    try {
      const res = await fetch(`${orphan.url}/wallet/getnowblock`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(503);
      const client = createTronClient({ network: network([orphan.url, chain.facade.url]), http: FAST });
      expect(await client.getBlockNumber()).toBeGreaterThan(0);
      const alone = createTronClient({ network: network([orphan.url]), http: FAST });
      expect(await alone.getBlockNumber().catch((e: AppError) => e.code)).toBe('unavailable');
    } finally {
      await orphan.stop();
    }
  });
});
