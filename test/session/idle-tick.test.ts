import { keccak256, toUtf8Bytes, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_ROUTER } from '../../src/modules/session/session.chain.ts';
import {
  followerOf,
  mine,
  routerPayer,
  type SessionFixture,
  sessionFixture,
  sessionRow,
  step as stepOf,
} from './support.ts';

/**
 * The sessions stream's after-tick work on a quiet chain opens no transaction: whether a payment is
 * there to claim and which sessions may end are plain reads. A transaction the player reports after
 * such a tick, already in the ledger, is still claimed by the next tick, without a block.
 */

let f: SessionFixture;
let payer: Wallet;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
  payer = await routerPayer(f);
});
afterAll(() => f?.close());

/** This fixture's follower, counting its fenced transactions (the fence runs first in each). */
function counted() {
  const seen = { transactions: 0 };
  const follower = followerOf(f, {
    fence: async () => {
      seen.transactions++;
    },
  });
  return { follower, seen };
}

const step = (session: string, action: string, value?: string) => stepOf(f, session, action, value);

describe('the sessions stream after a tick', () => {
  it('opens no transaction on a quiet chain, and claims a reported payment the next tick', async () => {
    const { follower, seen } = counted();
    await follower.pass(); // catches up and saves the window
    const init = await f.call('/v1/cashier/init', {
      network: 'eth',
      token: 'USDC',
      amount: '2',
      callback_url: 'http://127.0.0.1:9/webhook',
    });
    const session = init.body.session as string;
    const ready = await step(session, 'wallet_connected', payer.address);
    const call = ready.wallet_action!.params[0]!;
    // Paid under another order_ref: only the player's report can tie the payment to the session.
    const args = PAYMENT_ROUTER.decodeFunctionData('pay', call.data);
    const data = PAYMENT_ROUTER.encodeFunctionData('pay', [
      args[0],
      args[1],
      args[2],
      keccak256(toUtf8Bytes('not this session')),
      args[4],
    ]);
    const tx = await payer.sendTransaction({ to: call.to, data, gasLimit: 200_000n });
    await tx.wait();
    await mine(f, 3);
    await follower.pass(); // records the payment; nothing claims it
    expect((await sessionRow(f, session)).payment).toBeNull();

    seen.transactions = 0;
    await follower.pass();
    expect(seen.transactions).toBe(0);

    await step(session, 'signature_submitted', tx.hash);
    await follower.pass();
    expect((await sessionRow(f, session)).payment?.txHash).toBe(tx.hash.toLowerCase());
  });
});
