import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmSource } from '../../src/followers/evm-source.ts';
import { createFollower } from '../../src/followers/follower.ts';
import { depositNetworkOf } from '../../src/modules/deposit/deposit.chain.ts';
import { depositConsumer } from '../../src/modules/deposit/deposit.consumer.ts';
import { sendEvm } from '../../src/relay/evm-pipeline.ts';
import { relayConsumer } from '../../src/relay/relay.consumer.ts';
import { workerAnvil } from '../support/anvil.ts';
import { type LyingNode, lyingNode } from '../support/lying-node.ts';
import { type Body, type DepositFixture, depositEvents, depositFixture } from './support.ts';

/**
 * Standing addresses against a node whose `finalized` block is its latest (Hardhat's node): a deposit
 * and a sweep are final only `finalityDepth` (4 here) behind the head, whatever the node says; reverted
 * before that, nothing is credited or swept and no webhook goes out; again, each settles once.
 */

let node: LyingNode;
let f: DepositFixture;
let follower: ReturnType<typeof createFollower>;

beforeAll(async () => {
  node = await lyingNode((await workerAnvil()).rpcUrl);
  node.finalized = 'latest';
  f = await depositFixture({ rpcUrl: node.url });
  const app = f.t.app;
  const config = app.services.networks.get('eth')!;
  expect(config.finalityDepth).toBe(4);
  // The deposits stream sweeping after every tick, and the relayer's watcher, as a worker runs them.
  follower = createFollower({
    network: config,
    source: evmSource(app.services.chainClients.evm(config), config),
    consumers: [
      depositConsumer(
        { logger: app.logger, startBlock: f.startBlock, canSweep: true, sweepIntervalMs: 0 },
        depositNetworkOf(config)!,
      ),
      relayConsumer(app.services.relayer, config),
    ],
    fork: () => app.fork(),
    fence: async () => {},
    logger: app.logger,
  });
});
afterAll(async () => {
  await f?.close();
  await node?.close();
});

const deposits = (playerId: string) =>
  f.t.app
    .fork()
    .execute<Body[]>(
      `select status, tx_hash, sweep_id, swept_at from deposits where player_id = ? order by block_number`,
      [playerId],
    );
const eventsOf = async (playerId: string) => (await depositEvents(f)).filter((e) => e.player_id === playerId);
const sweeps = () =>
  f.t.app.fork().execute<Body[]>(`select id, status, tx_hash from sweeps order by created_at`);
const sweepRelays = () =>
  f.t.app
    .fork()
    .execute<{ id: string; status: string; nonce: string | null }[]>(
      `select id, status, nonce from relay_requests where kind = 'sweep' order by id`,
    );
/** What a worker's relay job does: sends every sweep relay waiting for a nonce. */
async function relay() {
  const network = f.t.app.services.networks.get('eth')!;
  for (const r of await sweepRelays())
    if (r.status === 'queued' && r.nonce === null)
      await sendEvm(f.t.app.services.relayer, network, Number(r.id));
}

describe('against a node whose finalized block is its latest', () => {
  it('a deposit reverted before finalityDepth is never credited; sent again, it is credited once', async () => {
    const address = await f.address('reverted');
    await follower.tick();
    const snapshot = await f.provider.send('evm_snapshot', []);
    const lost = await f.send('USDT', address, '5');
    await f.mine(2); // three deep, short of 4
    await follower.tick();
    expect(await deposits('reverted')).toMatchObject([{ status: 'pending', tx_hash: lost.toLowerCase() }]);
    expect(await eventsOf('reverted')).toEqual([]);

    await f.provider.send('evm_revert', [snapshot]);
    const liar = await follower.tick(); // the node's finalized went back with its head: nothing settles
    await f.mine(8);
    await follower.tick();
    expect(await deposits('reverted')).toEqual([]);
    expect(await eventsOf('reverted')).toEqual([]);
    expect(liar.inconsistent).toMatch(/finalized block went back/);

    const again = await f.send('USDT', address, '5');
    await f.mine(3);
    await follower.tick();
    expect(await deposits('reverted')).toMatchObject([{ status: 'pending' }]);
    await f.mine(1);
    await follower.tick();
    await f.mine(5);
    await follower.tick();
    expect(await deposits('reverted')).toMatchObject([{ status: 'credited', tx_hash: again.toLowerCase() }]);
    expect((await eventsOf('reverted')).map((e) => e.tx_hash)).toEqual([again.toLowerCase()]);
  });

  it('a sweep reverted before finalityDepth is not done; sent again, it is done once', async () => {
    // Every earlier deposit of this file swept first, so the sweep under test is this player's alone.
    for (let i = 0; i < 10 && (await sweeps()).some((s) => s.status !== 'done'); i++) {
      await relay();
      await f.mine(5);
      await follower.tick();
    }
    const address = await f.address('swept');
    await f.send('USDC', address, '3');
    await f.mine(5);
    await follower.tick(); // credited, and a sweep queued after the tick
    expect(await deposits('swept')).toMatchObject([{ status: 'credited', sweep_id: expect.any(String) }]);
    const walletBefore = await f.balance('USDC', f.wallet);

    const snapshot = await f.provider.send('evm_snapshot', []);
    await relay();
    await f.mine(2); // three deep, short of 4
    await follower.tick();
    const [mined] = (await sweeps()).slice(-1);
    expect(mined).toMatchObject({ status: 'mined' });
    expect(await deposits('swept')).toMatchObject([{ swept_at: null }]);
    expect(await f.balance('USDC', f.wallet)).toBe(walletBefore + 2_750_000n);

    await f.provider.send('evm_revert', [snapshot]);
    expect(await f.balance('USDC', f.wallet)).toBe(walletBefore);
    await follower.tick(); // the node's finalized went back: nothing settles
    await f.mine(8);
    await follower.tick(); // the sweep's block is gone: it waits again, and the watcher sends it again
    expect((await sweeps()).slice(-1)).toMatchObject([{ id: mined.id, status: 'queued' }]);
    expect(await deposits('swept')).toMatchObject([{ status: 'credited', swept_at: null }]);

    await relay(); // a relay the watcher gave back to the queue (none when it re-broadcast itself)
    for (let i = 0; i < 4 && (await deposits('swept'))[0].swept_at === null; i++) {
      await f.mine(5);
      await follower.tick();
    }
    expect(await deposits('swept')).toMatchObject([{ status: 'credited', swept_at: expect.anything() }]);
    expect((await sweeps()).filter((s) => s.id === mined.id)).toMatchObject([{ status: 'done' }]);
    expect(await f.balance('USDC', f.wallet)).toBe(walletBefore + 2_750_000n);
    expect((await eventsOf('swept')).length).toBe(1);
    const txs = await f.t.app.fork().execute<{ hash: string }[]>(
      `select t.hash from relay_transactions t join relay_requests r on r.id = t.request_id
        where r.kind = 'sweep' and r.subject_id = ?`,
      [mined.id],
    );
    expect(txs).toHaveLength(1); // the same signed transaction, sent again
  });
});
