import { getAddress, Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChainClients } from '../../src/chains/clients.ts';
import { contractAt } from '../../src/chains/contracts.ts';
import { networkFileSchema } from '../../src/chains/networks.ts';
import { SqlPool } from '../../src/db/sql.ts';
import { DEFAULT_DEV_TOKENS, deployDevContracts, fundPlayers } from '../../src/devstack/deploy.ts';
import {
  type BalanceEntry,
  BalanceService,
  NETWORK_READ_TIMEOUT_MS,
} from '../../src/modules/balance/balance.service.ts';
import { ethWallet } from '../session/support.ts';
import { workerAnvil } from '../support/anvil.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { deadUrl } from '../tron/support.ts';

/** GET /v1/balance (section 2.6, 4.20, D13): exact balances, per-token errors, a dead network's errors only. */

let t: TestApp;
let merchant: { id: string; keyId: string; secret: string };
let wallet: string;
let tokens: Record<string, { address: string; decimals: number }>;
const notAToken = Wallet.createRandom().address;

beforeAll(async () => {
  const node = await workerAnvil();
  const { JsonRpcProvider } = await import('ethers');
  const provider = new JsonRpcProvider(node.rpcUrl, node.chainId, { staticNetwork: true, cacheTimeout: -1 });
  const deployer = await ethWallet(provider);
  const contracts = await deployDevContracts(deployer, {
    tokens: [...DEFAULT_DEV_TOKENS],
    feeWallet: deployer.address,
  });
  tokens = contracts.tokens;
  wallet = Wallet.createRandom().address;
  await fundPlayers(deployer, contracts.tokens, [wallet], '12.345');
  await (
    await contractAt('TestToken', contracts.tokens.DAI!.address, deployer).getFunction('mint')(wallet, 1n)
  ).wait();
  const networks = networkFileSchema.parse({
    networks: [
      {
        id: 'eth',
        kind: 'evm',
        chainId: node.chainId,
        rpcUrls: [node.rpcUrl],
        tokens: [
          ...Object.values(contracts.tokens).map((x) => ({
            symbol: x.symbol,
            address: x.address,
            decimals: x.decimals,
          })),
          { symbol: 'NOPE', address: notAToken, decimals: 6 },
        ],
        contracts: { multicall3: contracts.multicall3 },
      },
      {
        id: 'bsc',
        kind: 'evm',
        chainId: 56,
        rpcUrls: [await deadUrl()],
        tokens: [{ symbol: 'USDT', address: contracts.tokens.USDT!.address, decimals: 18 }],
      },
      {
        id: 'unused',
        kind: 'evm',
        chainId: 1,
        rpcUrls: [node.rpcUrl],
        tokens: [{ symbol: 'USDT', address: notAToken, decimals: 6 }],
      },
    ],
  });
  t = await startTestApp({ networks });
  merchant = await t.merchant('Balances');
  await t.app.services.merchants.setSettlementWallet(t.app.fork(), merchant.id, 'bsc', wallet);
  await t.app.services.merchants.setSettlementWallet(t.app.fork(), merchant.id, 'eth', wallet);
});
afterAll(() => t?.close());

it('reads every token of every network with a wallet: exact amounts, a failed read as error, a dead network as errors', async () => {
  const started = Date.now();
  const res = await t.signed(merchant, 'GET', '/v1/balance');
  const elapsed = Date.now() - started;
  expect(res.status).toBe(200);
  const body = (await res.json()) as { wallet: string; balances: Record<string, unknown>[] };
  expect(body.wallet).toBe(getAddress(wallet));
  // Network-file order: eth's tokens, then bsc's; no entry for a network without a wallet.
  expect(body.balances.map((b) => `${b.network}:${b.token}`)).toEqual([
    ...Object.values(tokens).map((x) => `eth:${(x as unknown as { symbol: string }).symbol}`),
    'eth:NOPE',
    'bsc:USDT',
  ]);
  const eth = body.balances.filter((b) => b.network === 'eth');
  expect(eth.find((b) => b.token === 'USDT')).toEqual({
    network: 'eth',
    token: 'USDT',
    address: getAddress(tokens.USDT!.address),
    decimals: 6,
    wallet: getAddress(wallet),
    amount: '12.345',
    raw: '12345000',
  });
  expect(eth.find((b) => b.token === 'DAI')).toMatchObject({
    amount: '12.345000000000000001',
    raw: '12345000000000000001',
  });
  const nope = eth.find((b) => b.token === 'NOPE')!;
  expect(nope.error).toEqual(expect.any(String));
  expect(nope.amount).toBeUndefined();
  const bsc = body.balances.find((b) => b.network === 'bsc')!;
  expect(bsc.error).toMatch(/bsc/);
  expect(bsc.amount).toBeUndefined();
  expect(elapsed).toBeLessThan(NETWORK_READ_TIMEOUT_MS + 5_000);
});

it('is 400 unsupported for a merchant without any settlement wallet, and needs a signed request', async () => {
  const other = await t.merchant('No wallets');
  const res = await t.signed(other, 'GET', '/v1/balance');
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unsupported');
  expect((await fetch(`${t.http.url}/v1/balance`)).status).toBe(401);
});

it('starts the chain reads of the wallets last read while the database read is out, and answers for the wallets read now', async () => {
  const m = await t.merchant('Early reads');
  await t.app.services.merchants.setSettlementWallet(t.app.fork(), m.id, 'eth', wallet);
  const pool = new SqlPool(t.config.databaseUrl!);
  let gate = Promise.resolve();
  // The wallets read waits for `gate`; the chain reads record whose balances they read.
  const sql = {
    query: async (...args: Parameters<SqlPool['query']>) => {
      await gate;
      return pool.query(...args);
    },
  } as unknown as SqlPool;
  const owners: string[] = [];
  const clients = {
    evm: (network: Parameters<ChainClients['evm']>[0]) => {
      const client = t.app.services.chainClients.evm(network);
      return {
        ...client,
        read: (calls: Parameters<typeof client.read>[0], options?: Parameters<typeof client.read>[1]) => {
          owners.push((calls[0] as { owner: string }).owner.toLowerCase());
          return client.read(calls, options);
        },
      };
    },
  } as unknown as ChainClients;
  const service = new BalanceService({ networks: t.app.services.networks, clients, sql });
  const usdt = (r: { balances: BalanceEntry[] }) => r.balances.find((b) => b.token === 'USDT');
  try {
    expect(usdt(await service.balances(t.app.fork(), m.id))).toMatchObject({ amount: '12.345' });
    expect(owners).toEqual([wallet.toLowerCase()]);

    // The database read is held: the chain read of the wallet last read is already out.
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const second = service.balances(t.app.fork(), m.id);
    expect(owners).toEqual([wallet, wallet].map((o) => o.toLowerCase()));
    // Meanwhile the wallet changes: the database answers with the new one, and it is the one read.
    const fresh = Wallet.createRandom().address;
    await t.app.services.merchants.setSettlementWallet(t.app.fork(), m.id, 'eth', fresh);
    open();
    const answer = await second;
    expect(answer.wallet).toBe(getAddress(fresh));
    expect(usdt(answer)).toMatchObject({ wallet: getAddress(fresh), amount: '0', raw: '0' });
    expect(owners).toEqual([wallet, wallet, fresh].map((o) => o.toLowerCase()));
  } finally {
    await pool.close();
  }
});
