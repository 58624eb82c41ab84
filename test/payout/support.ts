/**
 * A payout fixture: the whole service on a cloned database, talking to this worker's anvil with
 * freshly deployed routers and tokens, and a merchant whose settlement (payout) wallet holds tokens.
 */
import { JsonRpcProvider, MaxUint256, type Wallet } from 'ethers';
import type { App } from '../../src/app.ts';
import { contractAt } from '../../src/chains/contracts.ts';
import { type NetworkFile, networkFileSchema } from '../../src/chains/networks.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import {
  DEFAULT_DEV_TOKENS,
  type DevContracts,
  deployDevContracts,
  fundPlayers,
} from '../../src/devstack/deploy.ts';
import { evmSource } from '../../src/followers/evm-source.ts';
import { createFollower } from '../../src/followers/follower.ts';
import type { PageHandler } from '../../src/http/server.ts';
import { batchConsumer } from '../../src/modules/batch/batch.consumer.ts';
import { payoutConsumer } from '../../src/modules/payout/payout.consumer.ts';
import { ethWallet } from '../session/support.ts';
import { workerAnvil } from '../support/anvil.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary response shapes
export type Body = any;

export interface PayoutFixture {
  t: TestApp;
  provider: JsonRpcProvider;
  deployer: Wallet;
  contracts: DevContracts;
  networks: NetworkFile;
  merchant: { id: string; keyId: string; secret: string };
  /** The merchant's settlement wallet = EVM payout wallet, holding 1000 of every token. */
  payer: Wallet;
  relayer: Wallet;
  startBlock: number;
  call(path: string, body: unknown): Promise<{ status: number; body: Body }>;
  /** Approves the single router for `amount` base units (default: unlimited) of a token. */
  approve(symbol: string, amount?: bigint, router?: string): Promise<void>;
  balance(symbol: string, owner: string): Promise<bigint>;
  close(): Promise<void>;
}

export async function payoutFixture(
  options: {
    env?: Record<string, string>;
    confirmations?: { below?: string; blocks: number }[];
    relay?: Record<string, unknown>;
    /** The node the service talks to on `eth` (a lying proxy in front of anvil); default anvil itself. */
    rpcUrl?: string;
    /** Also the payment router on `eth`, so the merchant takes deposit sessions there too. */
    sessions?: boolean;
    /** Browser-facing routes to mount. */
    pages?: (app: App) => PageHandler[];
  } = {},
): Promise<PayoutFixture> {
  const node = await workerAnvil();
  const provider = new JsonRpcProvider(node.rpcUrl, node.chainId, { staticNetwork: true, cacheTimeout: -1 });
  provider.pollingInterval = 20;
  const deployer = await ethWallet(provider);
  const relayer = await ethWallet(provider);
  const contracts = await deployDevContracts(deployer, {
    tokens: [...DEFAULT_DEV_TOKENS],
    feeWallet: deployer.address,
  });
  const payer = await ethWallet(provider);
  await fundPlayers(deployer, contracts.tokens, [payer.address], '1000');
  const networks = networkFileSchema.parse({
    networks: [
      {
        id: 'eth',
        kind: 'evm',
        chainId: node.chainId,
        rpcUrls: [options.rpcUrl ?? node.rpcUrl],
        confirmations: options.confirmations ?? [{ below: '1000', blocks: 2 }, { blocks: 4 }],
        tokens: Object.values(contracts.tokens).map((t) => ({
          symbol: t.symbol,
          address: t.address,
          decimals: t.decimals,
        })),
        contracts: {
          ...(options.sessions ? { paymentRouter: contracts.paymentRouter } : {}),
          payoutRouter: contracts.payoutRouter,
          batchPayoutRouter: contracts.batchPayoutRouter,
          multicall3: contracts.multicall3,
        },
        relayerPrivateKey: relayer.privateKey,
        relay: options.relay ?? {},
        pollIntervalMs: 50,
      },
      // A network without routers.
      {
        id: 'bare',
        kind: 'evm',
        chainId: node.chainId,
        rpcUrls: [node.rpcUrl],
        tokens: [{ symbol: 'USDT', address: contracts.tokens.USDT!.address, decimals: 6 }],
      },
    ],
  });
  const startBlock = await provider.getBlockNumber();
  const t = await startTestApp({ networks, env: options.env, pages: options.pages });
  const merchant = await t.merchant('Payout merchant');
  await t.app.services.merchants.setSettlementWallet(t.app.fork(), merchant.id, 'eth', payer.address);
  await t.app.services.merchants.setSettlementWallet(t.app.fork(), merchant.id, 'bare', payer.address);
  // Webhooks go nowhere reachable: the tests read the outbox.
  await t.hookTo(merchant.id, 'http://127.0.0.1:9/hooks');
  const tokenOf = (symbol: string, runner: Wallet) =>
    contractAt('TestToken', contracts.tokens[symbol]!.address, runner);
  return {
    t,
    provider,
    deployer,
    contracts,
    networks,
    merchant,
    payer,
    relayer,
    startBlock,
    async call(path, body) {
      const res = await t.signed(merchant, 'POST', path, body);
      return { status: res.status, body: await res.json() };
    },
    async approve(symbol, amount = MaxUint256, router = contracts.payoutRouter) {
      const nonce = Number(
        BigInt(await provider.send('eth_getTransactionCount', [payer.address, 'pending'])),
      );
      const tx = await tokenOf(symbol, payer).getFunction('approve')(router, amount, { nonce });
      await tx.wait();
    },
    balance: async (symbol, owner) =>
      (await tokenOf(symbol, deployer).getFunction('balanceOf')(owner)) as bigint,
    close: () => t.close(),
  };
}

/** Signs a create response's typed_data with `wallet` (eth_signTypedData_v4 as a wallet would). */
export async function signOrder(wallet: Pick<Wallet, 'signTypedData'>, typedData: Body): Promise<string> {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return wallet.signTypedData(typedData.domain, types, typedData.message);
}

/** Mines `n` blocks. */
export const mine = (provider: JsonRpcProvider, n = 1) =>
  provider.send('anvil_mine', [`0x${n.toString(16)}`]);

/**
 * The payouts and batches consumers on `eth`, driven tick by tick (no leadership: the follower tests
 * cover it). `fork` replaces the follower's EntityManager fork (a test interposes on its statements);
 * `maxBlocksPerTick` holds its streams back (a lagging stream).
 */
export function payoutFollower(
  f: PayoutFixture,
  options: { fork?: () => EntityManager; maxBlocksPerTick?: number } = {},
) {
  const app = f.t.app;
  const network = app.services.payoutChains.network('eth');
  const follower = createFollower({
    network,
    source: evmSource(app.services.chainClients.evm(network), network),
    consumers: [
      payoutConsumer(
        { chains: app.services.payoutChains, logger: app.logger, startBlock: f.startBlock },
        network,
        f.contracts.payoutRouter,
      ),
      batchConsumer(
        { chains: app.services.payoutChains, logger: app.logger, startBlock: f.startBlock },
        network,
        f.contracts.batchPayoutRouter,
      ),
    ],
    fork: options.fork ?? (() => app.fork()),
    fence: async () => {},
    logger: app.logger,
    ...(options.maxBlocksPerTick === undefined ? {} : { maxBlocksPerTick: options.maxBlocksPerTick }),
  });
  return { tick: () => follower.tick() };
}

/** Polls `read` until `done` holds or `ms` pass; returns the last value (the caller asserts on it). */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
