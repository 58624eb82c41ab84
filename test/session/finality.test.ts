import type { Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { workerAnvil } from '../support/anvil.ts';
import { type LyingNode, lyingNode } from '../support/lying-node.ts';
import {
  followerOf,
  mine,
  routerPayer,
  type SessionFixture,
  sessionFixture,
  sessionRow,
  step as stepOf,
  webhooksOf,
} from './support.ts';

/**
 * A deposit session against a node whose `finalized` block is its latest (Hardhat's node): a payment
 * reverted away three blocks deep, before the network's depth of 6, completes nothing and sends no
 * webhook; the merchant is paid again and the session completes once, with the hash on chain.
 */

let node: LyingNode;
let f: SessionFixture;
let payer: Wallet;
beforeAll(async () => {
  node = await lyingNode((await workerAnvil()).rpcUrl);
  node.finalized = 'latest';
  f = await sessionFixture({ players: 0, rpcUrl: node.url, confirmations: [{ blocks: 6 }] });
  payer = await routerPayer(f, 10n ** 9n);
});
afterAll(async () => {
  await f?.close();
  await node?.close();
});

const step = (session: string, action: string, value?: string) => stepOf(f, session, action, value);

async function pay(call: { to: string; data: string }): Promise<string> {
  const nonce = Number(BigInt(await f.provider.send('eth_getTransactionCount', [payer.address, 'pending'])));
  const tx = await payer.sendTransaction({ to: call.to, data: call.data, nonce, gasLimit: 200_000n });
  expect((await tx.wait())?.status).toBe(1);
  return tx.hash.toLowerCase();
}

const settled = () =>
  contractAt('TestToken', f.contracts.tokens.USDC!.address, f.deployer).getFunction('balanceOf')(
    f.settlement,
  ) as Promise<bigint>;

it('a payment reverted before depth completes nothing and sends nothing; paid again, it completes once', async () => {
  const init = await f.call('/v1/cashier/init', {
    network: 'eth',
    token: 'USDC',
    amount: '4',
    callback_url: 'http://127.0.0.1:9/webhook',
  });
  const session = init.body.session;
  const call = (await step(session, 'wallet_connected', payer.address)).wallet_action!.params[0]!;
  const listener = followerOf(f);
  await listener.pass();

  const snapshot = await f.provider.send('evm_snapshot', []);
  const lost = await pay(call);
  await mine(f, 2); // three blocks deep, short of 6
  await listener.pass();
  expect(await sessionRow(f, session)).toMatchObject({ status: 'processing', txHash: lost });

  await f.provider.send('evm_revert', [snapshot]);
  expect(await f.provider.send('eth_getTransactionReceipt', [lost])).toBeNull();
  const liar = await listener.pass(); // the node's finalized went back with its head: nothing settles
  expect(liar.completed).toEqual([]);
  await mine(f, 10); // the lost block would be 10 deep by now
  const after = await listener.pass();
  expect(after.completed).toEqual([]);
  expect(after.reorged).toEqual([session]);
  expect((await f.call('/v1/cashier/status', { session })).body).toMatchObject({
    status: 'pending',
    step: 'awaiting_payment',
  });
  expect(await webhooksOf(f, session)).toEqual([]);
  expect(await settled()).toBe(0n);
  expect(liar.inconsistent).toMatch(/finalized block went back/);

  const paid = await pay(call);
  await listener.pass();
  expect(await sessionRow(f, session)).toMatchObject({ status: 'processing', txHash: paid });
  await mine(f, 4);
  expect((await listener.pass()).completed).toEqual([]); // five deep
  await mine(f, 1);
  expect((await listener.pass()).completed).toEqual([session]);
  await mine(f, 6);
  await listener.pass();
  const hooks = await webhooksOf(f, session);
  expect(hooks.map((h) => [h.status, h.tx_hash])).toEqual([['completed', paid]]);
  expect(await f.provider.send('eth_getTransactionReceipt', [paid])).not.toBeNull();
  expect(await settled()).toBe(4_000_000n);
});
