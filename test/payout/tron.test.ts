import { MaxUint256, Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { networkFileSchema } from '../../src/chains/networks.ts';
import { evmToTron } from '../../src/chains/tron/address.ts';
import {
  DEFAULT_DEV_TOKENS,
  type DevContracts,
  deployDevContracts,
  fundPlayers,
} from '../../src/devstack/deploy.ts';
import { TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';
import { createFollower } from '../../src/followers/follower.ts';
import { tronSource } from '../../src/followers/tron-source.ts';
import { batchConsumer } from '../../src/modules/batch/batch.consumer.ts';
import { payoutConsumer } from '../../src/modules/payout/payout.consumer.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { fundedWallet, mine, TEST_SOLIDIFIED_LAG, type TronTestChain, tronChain } from '../tron/support.ts';
import { type Body, signOrder, until } from './support.ts';

/** Single payouts on `tron` through the Tron facade: the Tron payout wallet, T… addresses, solidified completion. */

let chain: TronTestChain;
let t: TestApp;
let contracts: DevContracts;
let payer: Wallet;
let merchant: { id: string; keyId: string; secret: string };
let follower: { tick(): Promise<unknown> };

beforeAll(async () => {
  chain = await tronChain();
  const deployer = await fundedWallet(chain.provider);
  contracts = await deployDevContracts(deployer, {
    tokens: [...DEFAULT_DEV_TOKENS],
    feeWallet: deployer.address,
  });
  payer = await fundedWallet(chain.provider);
  await fundPlayers(deployer, contracts.tokens, [payer.address], '500');
  const startBlock = await chain.provider.getBlockNumber();
  const networks = networkFileSchema.parse({
    networks: [
      {
        id: 'tron',
        kind: 'tron',
        chainId: TRON_CHAIN_ID,
        rpcUrls: [chain.facade.url],
        tokens: Object.values(contracts.tokens).map((x) => ({
          symbol: x.symbol,
          address: x.address,
          decimals: x.decimals,
        })),
        contracts: { payoutRouter: contracts.payoutRouter, batchPayoutRouter: contracts.batchPayoutRouter },
      },
    ],
  });
  t = await startTestApp({ networks });
  merchant = await t.merchant('Tron payouts');
  await t.app.services.merchants.update(t.app.fork(), merchant.id, {
    tronPayoutWallet: evmToTron(payer.address),
  });
  await t.hookTo(merchant.id, 'http://127.0.0.1:9/hooks');
  const network = t.app.services.payoutChains.network('tron');
  const f = createFollower({
    network,
    source: tronSource(t.app.services.chainClients.tronHttp(network)),
    consumers: [
      payoutConsumer(
        { chains: t.app.services.payoutChains, logger: t.app.logger, startBlock },
        network,
        contracts.payoutRouter,
      ),
      batchConsumer(
        { chains: t.app.services.payoutChains, logger: t.app.logger, startBlock },
        network,
        contracts.batchPayoutRouter,
      ),
    ],
    fork: () => t.app.fork(),
    fence: async () => {},
    logger: t.app.logger,
  });
  follower = { tick: () => f.tick() };
});
afterAll(() => t?.close());

const call = async (path: string, body: unknown) => {
  const res = await t.signed(merchant, 'POST', path, body);
  return { status: res.status, body: (await res.json()) as Body };
};

describe('payouts on tron', () => {
  it('refuses until the router is approved, naming the Tron spender and owner', async () => {
    const recipient = evmToTron(Wallet.createRandom().address);
    const { status, body } = await call('/v1/payouts', {
      network: 'tron',
      token: 'USDT',
      amount: '1',
      recipient,
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe('insufficient_allowance');
    expect(body.error.details).toMatchObject({
      owner: evmToTron(payer.address),
      spender: evmToTron(contracts.payoutRouter),
      token: 'USDT',
    });
  });

  it('pays a T… recipient from the Tron payout wallet, completing on the solidified block', async () => {
    const token = contractAt('TestToken', contracts.tokens.USDT!.address, payer);
    await (await token.getFunction('approve')(contracts.payoutRouter, MaxUint256)).wait();
    const recipientWallet = Wallet.createRandom();
    const recipient = evmToTron(recipientWallet.address);
    const bad = await call('/v1/payouts', {
      network: 'tron',
      token: 'USDT',
      amount: '1',
      recipient: recipientWallet.address,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/Tron address/);

    const { status, body } = await call('/v1/payouts', {
      network: 'tron',
      token: 'USDT',
      amount: '7.5',
      recipient,
    });
    expect(status).toBe(200);
    expect(body.recipient).toBe(recipient);
    expect(body.typed_data.domain).toMatchObject({
      chainId: TRON_CHAIN_ID,
      verifyingContract: contracts.payoutRouter,
    });
    // Every address of the typed data is the 20-byte 0x form (D7).
    expect(body.typed_data.message).toMatchObject({
      merchant: payer.address,
      recipient: recipientWallet.address,
      token: contracts.tokens.USDT!.address,
      amount: '7500000',
    });
    const stranger = await signOrder(Wallet.createRandom(), body.typed_data);
    expect((await call('/v1/payouts/authorize', { payout: body.payout, signature: stranger })).status).toBe(
      403,
    );
    const signature = await signOrder(payer, body.typed_data);
    const auth = await call('/v1/payouts/authorize', { payout: body.payout, signature });
    expect(auth.body.status).toBe('authorized');

    // Anyone may relay the signed order; the follower settles it from the router's event.
    const m = body.typed_data.message;
    const relayer = await fundedWallet(chain.provider);
    const router = contractAt('PayoutRouter', contracts.payoutRouter, relayer);
    const tx = await router.getFunction('execute')(
      [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
      signature,
    );
    await tx.wait();
    await follower.tick();
    expect((await call('/v1/payouts/status', { payout: body.payout })).body.status).toBe('authorized');
    await mine(chain.provider, TEST_SOLIDIFIED_LAG + 1);
    await follower.tick();
    const done = await call('/v1/payouts/status', { payout: body.payout });
    expect(done.body).toMatchObject({
      status: 'completed',
      tx_hash: (tx.hash as string).toLowerCase(),
      recipient,
    });
    expect(await token.getFunction('balanceOf')(recipientWallet.address)).toBe(7_500_000n);
  });

  it('pays a batch of T… recipients: T… in responses, 0x in typed_data, each item completed', async () => {
    const token = contractAt('TestToken', contracts.tokens.USDT!.address, payer);
    await (await token.getFunction('approve')(contracts.batchPayoutRouter, MaxUint256)).wait();
    const wallets = [Wallet.createRandom(), Wallet.createRandom()];
    const { status, body } = await call('/v1/payouts/batch', {
      network: 'tron',
      token: 'USDT',
      items: wallets.map((w, i) => ({ recipient: evmToTron(w.address), amount: `${i + 1}.5` })),
    });
    expect(status).toBe(200);
    expect(body.items.map((i: Body) => i.recipient)).toEqual(wallets.map((w) => evmToTron(w.address)));
    expect(body.typed_data.domain).toMatchObject({
      chainId: TRON_CHAIN_ID,
      verifyingContract: contracts.batchPayoutRouter,
    });
    expect(body.typed_data.message.items).toEqual([
      { recipient: wallets[0]!.address, amount: '1500000' },
      { recipient: wallets[1]!.address, amount: '2500000' },
    ]);
    const signature = await signOrder(payer, body.typed_data);
    expect((await call('/v1/payouts/batch/authorize', { batch: body.batch, signature })).body.status).toBe(
      'authorized',
    );
    const m = body.typed_data.message;
    const relayer = await fundedWallet(chain.provider);
    const router = contractAt('BatchPayoutRouter', contracts.batchPayoutRouter, relayer);
    const tx = await router.getFunction('executeBatch')(
      [m.token, m.merchant, m.items.map((i: Body) => [i.recipient, i.amount]), m.nonce, m.deadline],
      signature,
    );
    await tx.wait();
    await mine(chain.provider, TEST_SOLIDIFIED_LAG + 1);
    await follower.tick();
    const done = await call('/v1/payouts/batch/status', { batch: body.batch });
    expect(done.body.status).toBe('completed');
    expect(await token.getFunction('balanceOf')(wallets[1]!.address)).toBe(2_500_000n);
  });

  it('approves through the approval endpoints: tx_id signed by the Tron payout wallet, both broadcast forms', async () => {
    const approve = (amount: string) =>
      call('/v1/payouts/approval', { network: 'tron', token: 'USDC', amount });
    const { status, body } = await approve('40');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({
      spender: evmToTron(contracts.payoutRouter),
      source: evmToTron(payer.address),
      amount: '40',
    });
    expect(body.wallet_action).toBeUndefined();
    expect(Object.keys(body.transaction).sort()).toEqual([
      'expiration',
      'fee_limit',
      'raw_transaction',
      'tx_id',
    ]);
    const sig = (txId: string, key = payer) => key.signingKey.sign(`0x${txId}`).serialized;
    // Another key: 403, unsent.
    const stranger = Wallet.createRandom();
    const wrong = await call('/v1/payouts/approval/broadcast', {
      network: 'tron',
      token: 'USDC',
      amount: '40',
      raw_transaction: body.transaction.raw_transaction,
      signature: sig(body.transaction.tx_id, stranger as unknown as Wallet),
    });
    expect(wrong.status).toBe(403);
    // Another amount than built: 400.
    const other = await call('/v1/payouts/approval/broadcast', {
      network: 'tron',
      token: 'USDC',
      amount: '41',
      raw_transaction: body.transaction.raw_transaction,
      signature: sig(body.transaction.tx_id),
    });
    expect(other.status).toBe(400);
    const sent = await call('/v1/payouts/approval/broadcast', {
      network: 'tron',
      token: 'USDC',
      amount: '40',
      raw_transaction: body.transaction.raw_transaction,
      signature: sig(body.transaction.tx_id).slice(2),
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.body.tx_hash).toBe(body.transaction.tx_id);
    await mine(chain.provider, 1);
    const state = await until(
      async () =>
        (
          await call('/v1/payouts/approval/status', {
            network: 'tron',
            token: 'USDC',
            tx_hash: sent.body.tx_hash,
          })
        ).body,
      (b: Body) => b.status === 'confirmed',
      10_000,
    );
    expect(state).toMatchObject({ status: 'confirmed', allowance: '40' });
    // The whole signed transaction, as a Tron wallet returns it.
    const again = await approve('55');
    const whole = {
      txID: again.body.transaction.tx_id,
      raw_data_hex: again.body.transaction.raw_transaction,
      signature: [sig(again.body.transaction.tx_id).slice(2)],
    };
    const sent2 = await call('/v1/payouts/approval/broadcast', {
      network: 'tron',
      token: 'USDC',
      amount: '55',
      signed_transaction: whole,
    });
    expect(sent2.status, JSON.stringify(sent2.body)).toBe(200);
    await mine(chain.provider, 1);
    const state2 = await until(
      async () =>
        (
          await call('/v1/payouts/approval/status', {
            network: 'tron',
            token: 'USDC',
            tx_hash: sent2.body.tx_hash,
          })
        ).body,
      (b: Body) => b.status === 'confirmed',
      10_000,
    );
    expect(state2.allowance).toBe('55');
  });

  it('reads the Tron settlement wallet’s balances (GET /v1/balance): T… addresses, exact amounts', async () => {
    await t.app.services.merchants.setSettlementWallet(
      t.app.fork(),
      merchant.id,
      'tron',
      evmToTron(payer.address),
    );
    const res = await t.signed(merchant, 'GET', '/v1/balance');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { wallet: string; balances: Record<string, string>[] };
    expect(body.wallet).toBe(evmToTron(payer.address));
    const token = contractAt('TestToken', contracts.tokens.USDC!.address, payer);
    const raw = (await token.getFunction('balanceOf')(payer.address)) as bigint;
    expect(body.balances.find((b) => b.token === 'USDC')).toMatchObject({
      network: 'tron',
      address: evmToTron(contracts.tokens.USDC!.address),
      wallet: evmToTron(payer.address),
      raw: raw.toString(),
    });
  });
});
