import { getBytes, MaxUint256, Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { contractAt } from '../../src/chains/contracts.ts';
import { networkFileSchema } from '../../src/chains/networks.ts';
import { evmToTron, toTronHex, tronToEvm } from '../../src/chains/tron/address.ts';
import { decodeRaw } from '../../src/chains/tron/tx-raw.ts';
import {
  DEFAULT_DEV_TOKENS,
  type DevContracts,
  deployDevContracts,
  fundPlayers,
} from '../../src/devstack/deploy.ts';
import { TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';
import { startWorker, type Worker } from '../../src/worker/runner.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { fundedWallet, type TronTestChain, tronChain } from '../tron/support.ts';
import { type Body, signOrder, until } from './support.ts';

/**
 * Payouts on `tron` relayed by the service: TriggerSmartContract built by the node, signed by the
 * relayer hot wallet, stored before broadcast, completed at the solidified block — through the facade.
 */

let chain: TronTestChain;
let t: TestApp;
let contracts: DevContracts;
let payer: Wallet;
let relayer: Wallet;
let merchant: { id: string; keyId: string; secret: string };
let worker: Worker;
let miner: ReturnType<typeof setInterval>;

beforeAll(async () => {
  chain = await tronChain();
  const deployer = await fundedWallet(chain.provider);
  contracts = await deployDevContracts(deployer, {
    tokens: [...DEFAULT_DEV_TOKENS],
    feeWallet: deployer.address,
  });
  payer = await fundedWallet(chain.provider);
  relayer = await fundedWallet(chain.provider);
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
        relayerPrivateKey: relayer.privateKey,
        pollIntervalMs: 100,
      },
      {
        // The same chain with the old constant as the operator's cap on a relay's fee limit.
        id: 'tron-capped',
        kind: 'tron',
        chainId: TRON_CHAIN_ID,
        rpcUrls: [chain.facade.url],
        tokens: [{ symbol: 'USDT', address: contracts.tokens.USDT!.address, decimals: 6 }],
        contracts: { batchPayoutRouter: contracts.batchPayoutRouter },
        relay: { feeLimitSun: 100_000_000 },
        pollIntervalMs: 100,
      },
    ],
  });
  t = await startTestApp({ networks });
  merchant = await t.merchant('Tron relays');
  await t.app.services.merchants.update(t.app.fork(), merchant.id, {
    tronPayoutWallet: evmToTron(payer.address),
  });
  await t.hookTo(merchant.id, 'http://127.0.0.1:9/hooks');
  const token = contractAt('TestToken', contracts.tokens.USDT!.address, payer);
  await (await token.getFunction('approve')(contracts.payoutRouter, MaxUint256)).wait();
  await (await token.getFunction('approve')(contracts.batchPayoutRouter, MaxUint256)).wait();
  worker = await startWorker(t.app, { followers: { payoutStartBlock: startBlock, standbyRetryMs: 100 } });
  miner = setInterval(() => void chain.provider.send('anvil_mine', ['0x1']).catch(() => {}), 300);
});
afterAll(async () => {
  clearInterval(miner);
  await worker?.stop();
  await t?.close();
});

const call = async (path: string, body: unknown) => {
  const res = await t.signed(merchant, 'POST', path, body);
  return { status: res.status, body: (await res.json()) as Body };
};

it('relays a tron payout from the relayer wallet to completed on the solidified block', async () => {
  const recipient = Wallet.createRandom();
  const { body } = await call('/v1/payouts', {
    network: 'tron',
    token: 'USDT',
    amount: '9',
    recipient: evmToTron(recipient.address),
  });
  const signature = await signOrder(payer, body.typed_data);
  expect((await call('/v1/payouts/authorize', { payout: body.payout, signature })).body.status).toBe(
    'authorized',
  );
  const done = await until(
    async () => (await call('/v1/payouts/status', { payout: body.payout })).body,
    (s: Body) => s.status === 'completed' || s.status === 'failed',
    40_000,
  );
  expect(done.status).toBe('completed');
  const token = contractAt('TestToken', contracts.tokens.USDT!.address, payer);
  expect(await token.getFunction('balanceOf')(recipient.address)).toBe(9_000_000n);
  const txs = await t.app
    .fork()
    .execute<{ hash: string; status: string; raw: string }[]>(
      `select t.hash, t.status, t.raw from relay_transactions t join relay_requests r on r.id = t.request_id where r.subject_id = ?`,
      [body.payout],
    );
  expect(txs).toHaveLength(1);
  expect(txs[0]!.status).toBe('mined');
  expect(txs[0]!.hash).toBe(done.tx_hash);
  // On chain, the relay is the relayer's TriggerSmartContract of the router.
  const network = t.app.services.payoutChains.network('tron');
  const onChain = await t.app.services.chainClients.tronClient(network).getTransaction(done.tx_hash);
  expect(onChain).toMatchObject({ owner: relayer.address, contract: contracts.payoutRouter });
}, 60_000);

const batchOf = (network: string, count: number) =>
  call('/v1/payouts/batch', {
    network,
    token: 'USDT',
    items: Array.from({ length: count }, () => ({
      recipient: evmToTron(Wallet.createRandom().address),
      amount: '1',
    })),
  });

it('relays a 100-item tron batch to completed: the fee limit comes from the energy estimate, not a constant', async () => {
  const { status, body } = await batchOf('tron', 100);
  expect(status, JSON.stringify(body)).toBe(200);
  const signature = await signOrder(payer, body.typed_data);
  expect((await call('/v1/payouts/batch/authorize', { batch: body.batch, signature })).body.status).toBe(
    'authorized',
  );
  const done = await until(
    async () => (await call('/v1/payouts/batch/status', { batch: body.batch })).body,
    (b: Body) => ['completed', 'partially_completed', 'failed'].includes(b.status),
    120_000,
  );
  expect(done.status).toBe('completed');
  const token = contractAt('TestToken', contracts.tokens.USDT!.address, payer);
  for (const item of [done.items[0], done.items[99]])
    expect(await token.getFunction('balanceOf')(tronToEvm(item.recipient))).toBe(1_000_000n);
  // One relay, mined on its first attempt, with a fee limit far above the old 100 TRX constant.
  const txs = await t.app.fork().execute<{ raw: string; status: string }[]>(
    `select t.raw, t.status from relay_transactions t join relay_requests r on r.id = t.request_id
        where r.subject_id like ?`,
    [`${body.batch}%`],
  );
  expect(txs.map((x) => x.status)).toEqual(['mined']);
  const feeLimit = decodeRaw(getBytes(`0x${txs[0]!.raw.split(':')[0]!}`)).feeLimit;
  expect(feeLimit).toBeGreaterThan(100_000_000);
  expect(feeLimit).toBeLessThanOrEqual(15_000_000_000);
}, 180_000);

it('refuses at create a tron batch whose estimated energy costs more than the network lets a relay burn', async () => {
  const { status, body } = await batchOf('tron-capped', 30);
  expect(status).toBe(400);
  expect(body.error.code).toBe('validation');
  expect(body.error.message).toMatch(
    /^items: 30 items need about \d+ energy \([\d.]+ TRX\), more than the fee limit cap of 100 TRX on tron-capped; split the batch$/,
  );
  // A small batch fits under the same cap.
  expect((await batchOf('tron-capped', 2)).status).toBe(200);
});

it('logs a relay that ran out of energy at error level and pays it with a wider margin from a fresh estimate', async () => {
  // The node underestimates once (state moved between estimate and run): the first relay runs out.
  const network = t.app.services.payoutChains.network('tron');
  const http = t.app.services.relayer.deps.clients.tronHttp(network);
  const post = http.post.bind(http);
  const router = toTronHex(contracts.payoutRouter);
  let underestimated = 0;
  const spy = vi.spyOn(http, 'post').mockImplementation(async (path, body, options) => {
    const { contract_address: target, data } = body as { contract_address?: string; data?: string };
    // The relay's own call (the order and its signature), not the router's views (nonceUsed, …).
    const relayCall =
      path === '/wallet/triggerconstantcontract' && target === router && (data?.length ?? 0) > 300;
    if (relayCall && underestimated++ === 0)
      return { result: { result: true }, energy_used: 25_000, constant_result: [''] } as never;
    return post(path, body, options);
  });
  const errors = vi.spyOn(t.app.services.relayer.deps.logger, 'error');
  try {
    const recipient = Wallet.createRandom();
    const { body } = await call('/v1/payouts', {
      network: 'tron',
      token: 'USDT',
      amount: '2',
      recipient: evmToTron(recipient.address),
    });
    const signature = await signOrder(payer, body.typed_data);
    expect((await call('/v1/payouts/authorize', { payout: body.payout, signature })).body.status).toBe(
      'authorized',
    );
    const done = await until(
      async () => (await call('/v1/payouts/status', { payout: body.payout })).body,
      (s: Body) => s.status === 'completed' || s.status === 'failed',
      60_000,
    );
    expect(done.status).toBe('completed');
    const txs = await t.app.fork().execute<{ hash: string; raw: string }[]>(
      `select t.hash, t.raw from relay_transactions t join relay_requests r on r.id = t.request_id
          where r.subject_id = ? order by t.id`,
      [body.payout],
    );
    expect(txs).toHaveLength(2);
    const limits = txs.map((x) => decodeRaw(getBytes(`0x${x.raw.split(':')[0]!}`)).feeLimit);
    expect(limits[0]).toBe((25_000 * 210 * 120) / 100);
    expect(limits[1]).toBeGreaterThan(limits[0]!);
    const first = await t.app.services.chainClients.tronClient(network).getTxState(txs[0]!.hash);
    expect(first.result).toBe('OUT_OF_ENERGY');
    expect(errors).toHaveBeenCalledWith(
      'a tron relay ran out of energy; its fee limit was burned',
      expect.objectContaining({ tx: txs[0]!.hash }),
    );
  } finally {
    spy.mockRestore();
    errors.mockRestore();
  }
}, 90_000);

it('stops a relay that ran out of energy with all the cap allows: one fee limit burned, never sent again', async () => {
  const network = t.app.services.payoutChains.network('tron');
  const http = t.app.services.relayer.deps.clients.tronHttp(network);
  const post = http.post.bind(http);
  const router = toTronHex(contracts.payoutRouter);
  // The node keeps underpricing the call, and the cap is that estimate with its margin.
  const spy = vi.spyOn(http, 'post').mockImplementation(async (path, body, options) => {
    const { contract_address: target, data } = body as { contract_address?: string; data?: string };
    if (path === '/wallet/triggerconstantcontract' && target === router && (data?.length ?? 0) > 300)
      return { result: { result: true }, energy_used: 25_000, constant_result: [''] } as never;
    return post(path, body, options);
  });
  const cap = (25_000 * 210 * 120) / 100;
  const saved = network.relay;
  network.relay = { ...saved, feeLimitSun: cap };
  const errors = vi.spyOn(t.app.services.relayer.deps.logger, 'error');
  try {
    const { body } = await call('/v1/payouts', {
      network: 'tron',
      token: 'USDT',
      amount: '2',
      recipient: evmToTron(Wallet.createRandom().address),
    });
    const signature = await signOrder(payer, body.typed_data);
    await call('/v1/payouts/authorize', { payout: body.payout, signature });
    const [request] = await until(
      () =>
        t.app
          .fork()
          .execute<{ id: string; status: string; last_error: string | null }[]>(
            `select id, status, last_error from relay_requests where subject_id = ?`,
            [body.payout],
          ),
      (rows) => rows[0]?.status === 'abandoned',
      60_000,
    );
    expect(request).toMatchObject({ status: 'abandoned' });
    expect(request!.last_error).toMatch(/^out_of_energy: ran out of energy at the fee limit cap of 6\.3 TRX/);
    const txs = await t.app
      .fork()
      .execute<{ raw: string }[]>(`select raw from relay_transactions where request_id = ?`, [request!.id]);
    expect(txs.map((x) => decodeRaw(getBytes(`0x${x.raw.split(':')[0]!}`)).feeLimit)).toEqual([cap]);
    expect(errors).toHaveBeenCalledWith(
      'a tron relay ran out of energy at the fee limit cap; it is not sent again',
      expect.objectContaining({ request: Number(request!.id) }),
    );
    // Nothing left the wallet, but the payout is failed only once its deadline is final on chain.
    expect((await call('/v1/payouts/status', { payout: body.payout })).body.status).not.toBe('failed');
  } finally {
    network.relay = saved;
    spy.mockRestore();
    errors.mockRestore();
  }
}, 90_000);
