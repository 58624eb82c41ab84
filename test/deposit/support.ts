/**
 * A standing-address fixture: the whole service on a cloned database, talking to this worker's anvil
 * (`eth`) or the worker's Tron facade (`tron`) with freshly deployed tokens and ForwarderFactory (the
 * relayer an allowed sweeper), and a merchant with a settlement wallet on the network.
 */
import { JsonRpcProvider, parseUnits, Wallet } from 'ethers';
import type { App } from '../../src/app.ts';
import { contractAt } from '../../src/chains/contracts.ts';
import type { EvmClient } from '../../src/chains/evm/index.ts';
import { type NetworkFile, networkFileSchema } from '../../src/chains/networks.ts';
import { evmToTron, toEvmAddress } from '../../src/chains/tron/address.ts';
import {
  DEFAULT_DEV_TOKENS,
  type DevContracts,
  deployDevContracts,
  fundPlayers,
} from '../../src/devstack/deploy.ts';
import { TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';
import { evmSource } from '../../src/followers/evm-source.ts';
import { createFollower } from '../../src/followers/follower.ts';
import { tronSource } from '../../src/followers/tron-source.ts';
import type { Consumer } from '../../src/followers/types.ts';
import type { PageHandler } from '../../src/http/server.ts';
import { depositNetworkOf } from '../../src/modules/deposit/deposit.chain.ts';
import { depositConsumer } from '../../src/modules/deposit/deposit.consumer.ts';
import { ethWallet } from '../session/support.ts';
import { workerAnvil } from '../support/anvil.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { fundedWallet, tronChain } from '../tron/support.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary response shapes
export type Body = any;

/** Fees per deposit (whole units) the fixture configures, on the factory and in the network file. */
export const FEES: Record<string, string> = { USDT: '0.5', USDC: '0.25', DAI: '0' };

export interface DepositFixture {
  t: TestApp;
  kind: 'evm' | 'tron';
  network: string;
  provider: JsonRpcProvider;
  deployer: Wallet;
  relayer: Wallet;
  /** Holds 1000 of every token: sends the deposits. */
  player: Wallet;
  feeWallet: string;
  contracts: DevContracts;
  networks: NetworkFile;
  merchant: { id: string; keyId: string; secret: string };
  /** The merchant's settlement wallet (0x form). */
  wallet: string;
  startBlock: number;
  call(path: string, body: unknown): Promise<{ status: number; body: Body }>;
  /** The player's deposit address (0x form) from the endpoint. */
  address(playerId: string): Promise<string>;
  /** Sends `amount` whole units of `symbol` from the player to `to`; returns the transaction hash. */
  send(symbol: string, to: string, amount: string): Promise<string>;
  balance(symbol: string, owner: string): Promise<bigint>;
  mine(blocks?: number): Promise<void>;
  close(): Promise<void>;
}

export async function depositFixture(
  options: {
    kind?: 'evm' | 'tron';
    sweepMinimum?: Record<string, string>;
    /** The node the service talks to on `eth` (a lying proxy in front of anvil); default anvil itself. */
    rpcUrl?: string;
    /** Browser-facing routes to mount (the console: test/console/support.ts). */
    pages?: (app: App) => PageHandler[];
  } = {},
): Promise<DepositFixture> {
  const kind = options.kind ?? 'evm';
  const network = kind === 'tron' ? 'tron' : 'eth';
  let provider: JsonRpcProvider;
  let rpcUrl: string;
  let chainId: number;
  if (kind === 'tron') {
    const chain = await tronChain();
    provider = chain.provider;
    rpcUrl = chain.facade.url;
    chainId = TRON_CHAIN_ID;
  } else {
    const node = await workerAnvil();
    provider = new JsonRpcProvider(node.rpcUrl, node.chainId, { staticNetwork: true, cacheTimeout: -1 });
    provider.pollingInterval = 20;
    rpcUrl = options.rpcUrl ?? node.rpcUrl;
    chainId = node.chainId;
  }
  const funded = kind === 'tron' ? fundedWallet : ethWallet;
  const deployer = await funded(provider);
  const relayer = await funded(provider);
  const player = await funded(provider);
  const feeWallet = Wallet.createRandom().address;
  const contracts = await deployDevContracts(deployer, {
    tokens: DEFAULT_DEV_TOKENS.map((t) => ({ ...t, depositFee: FEES[t.symbol] })),
    feeWallet,
    sweepers: [relayer.address],
    tronQuirks: kind === 'tron',
  });
  await fundPlayers(deployer, contracts.tokens, [player.address], '1000');
  const networks = networkFileSchema.parse({
    networks: [
      {
        id: network,
        kind,
        chainId,
        rpcUrls: [rpcUrl],
        tokens: Object.values(contracts.tokens).map((t) => ({
          symbol: t.symbol,
          address: t.address,
          decimals: t.decimals,
          depositFee: FEES[t.symbol],
          sweepMinimum: options.sweepMinimum?.[t.symbol] ?? '0',
        })),
        contracts: {
          forwarderFactory: contracts.forwarderFactory,
          forwarderImplementation: contracts.forwarderImplementation,
          multicall3: contracts.multicall3,
        },
        // The dev Tron chain is anvil: the EVM CREATE2 rule.
        create2Prefix: '0xff',
        feeWallet,
        relayerPrivateKey: relayer.privateKey,
        pollIntervalMs: 50,
        finalityDepth: 4,
      },
      // A network without a ForwarderFactory.
      { id: 'bare', kind: 'evm', chainId, rpcUrls: [rpcUrl] },
    ],
  });
  const startBlock = await provider.getBlockNumber();
  const t = await startTestApp({ networks, pages: options.pages });
  const merchant = await t.merchant('Deposit merchant');
  const settlement = Wallet.createRandom().address;
  const shown = kind === 'tron' ? evmToTron(settlement) : settlement;
  await t.app.services.merchants.setSettlementWallet(t.app.fork(), merchant.id, network, shown);
  await t.hookTo(merchant.id, 'http://127.0.0.1:9/hooks');
  const tokenOf = (symbol: string, runner: Wallet) =>
    contractAt('TestToken', contracts.tokens[symbol]!.address, runner);
  const call = async (path: string, body: unknown) => {
    const res = await t.signed(merchant, 'POST', path, body);
    return { status: res.status, body: (await res.json()) as Body };
  };
  return {
    t,
    kind,
    network,
    provider,
    deployer,
    relayer,
    player,
    feeWallet,
    contracts,
    networks,
    merchant,
    wallet: settlement,
    startBlock,
    call,
    async address(playerId) {
      const { status, body } = await call('/v1/wallet/address', { player_id: playerId, network });
      if (status !== 200) throw new Error(`wallet/address: ${status} ${JSON.stringify(body)}`);
      return toEvmAddress(body.address);
    },
    async send(symbol, to, amount) {
      const token = tokenOf(symbol, player);
      const nonce = Number(
        BigInt(await provider.send('eth_getTransactionCount', [player.address, 'pending'])),
      );
      const tx = await token.getFunction('transfer')(
        to,
        parseUnits(amount, contracts.tokens[symbol]!.decimals),
        {
          nonce,
        },
      );
      await tx.wait();
      return tx.hash as string;
    },
    balance: async (symbol, owner) =>
      (await tokenOf(symbol, deployer).getFunction('balanceOf')(owner)) as bigint,
    mine: async (blocks = 1) => void (await provider.send('anvil_mine', [`0x${blocks.toString(16)}`])),
    close: () => t.close(),
  };
}

/** The deposits consumer of the fixture's network, driven tick by tick (no leadership, no sweeps). */
export function depositFollower(
  f: DepositFixture,
  options: { client?: EvmClient; stream?: (c: Consumer) => Consumer; maxBlocksPerTick?: number } = {},
) {
  const app = f.t.app;
  const config = app.services.networks.get(f.network)!;
  const consumer = depositConsumer(
    { logger: app.logger, startBlock: f.startBlock, canSweep: false },
    depositNetworkOf(config)!,
  );
  const follower = createFollower({
    network: config,
    source:
      f.kind === 'tron'
        ? tronSource(app.services.chainClients.tronHttp(config))
        : evmSource(options.client ?? app.services.chainClients.evm(config), config),
    consumers: [options.stream ? options.stream(consumer) : consumer],
    fork: () => app.fork(),
    fence: async () => {},
    logger: app.logger,
    maxBlocksPerTick: options.maxBlocksPerTick,
  });
  return { tick: () => follower.tick() };
}

/** The deposit.confirmed events in the outbox (ids are random: no order within one commit). */
export async function depositEvents(f: DepositFixture): Promise<Body[]> {
  const rows = await f.t.app
    .fork()
    .execute<{ body: Body }[]>(
      `select body from webhook_events where event = 'deposit.confirmed' order by id`,
    );
  return rows.map((r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body));
}
