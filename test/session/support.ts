/**
 * A deposit-session fixture: the whole service on a cloned database, talking to this worker's anvil
 * with freshly deployed routers and tokens, a merchant with a settlement wallet, and funded players.
 */
import { JsonRpcProvider, MaxUint256, parseEther, Wallet } from 'ethers';
import type { App } from '../../src/app.ts';
import { ChainClients } from '../../src/chains/clients.ts';
import { contractAt } from '../../src/chains/contracts.ts';
import type { LogScanOptions } from '../../src/chains/evm/index.ts';
import { type NetworkFile, networkFileSchema } from '../../src/chains/networks.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import {
  DEFAULT_DEV_TOKENS,
  type DevContracts,
  deployDevContracts,
  fundPlayers,
} from '../../src/devstack/deploy.ts';
import { evmSource } from '../../src/followers/evm-source.ts';
import { createFollower, type TickResult } from '../../src/followers/follower.ts';
import type { Consumer } from '../../src/followers/types.ts';
import type { PageHandler } from '../../src/http/server.ts';
import { sessionConsumer } from '../../src/modules/session/session.consumer.ts';
import { Session } from '../../src/modules/session/session.entity.ts';
import { workerAnvil } from '../support/anvil.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** A REST answer of the cashier routes: a StepResponse, or the error envelope. */
export interface StepBody {
  step: string;
  session: string;
  status: string;
  components: {
    type: string;
    text?: string | null;
    options?:
      | {
          label: string;
          action: string;
          value: string;
          note?: string | null;
          disabled?: boolean | null;
          reason?: string | null;
        }[]
      | null;
    name?: string | null;
    action?: string | null;
    status?: string | null;
  }[];
  wallet_action?: WalletActionBody | null;
  submit_action?: string | null;
  error: { code: string; message: string; details?: Record<string, string> };
}

export interface WalletActionBody {
  method: string;
  params: { from: string; to: string; data: string; value: string }[];
  chain_id?: string | null;
}

export interface SessionFixture {
  t: TestApp;
  provider: JsonRpcProvider;
  deployer: Wallet;
  contracts: DevContracts;
  networks: NetworkFile;
  merchant: { id: string; keyId: string; secret: string };
  settlement: string;
  /** A block before anything of this fixture happened: where its listener starts. */
  startBlock: number;
  /** Funded with 1000 of every token and 100 ETH. */
  players: Wallet[];
  /** Signed REST call as the merchant; resolves to status and parsed body. */
  call(path: string, body: unknown): Promise<{ status: number; body: StepBody }>;
  close(): Promise<void>;
}

/** A new random wallet with 100 ETH. */
export async function ethWallet(provider: JsonRpcProvider): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [wallet.address, `0x${parseEther('100').toString(16)}`]);
  return wallet;
}

/**
 * A new wallet with 100 ETH holding `amount` base units of USDC, with the payment router approved for
 * all of it: a payer that sends router calls itself (not one of the fixture's players).
 */
export async function routerPayer(f: SessionFixture, amount = 10n ** 12n): Promise<Wallet> {
  const payer = await ethWallet(f.provider);
  const usdc = f.contracts.tokens.USDC!;
  await (
    await contractAt('TestToken', usdc.address, f.deployer).getFunction('mint')(payer.address, amount)
  ).wait();
  await (
    await contractAt('TestToken', usdc.address, payer).getFunction('approve')(
      f.contracts.paymentRouter,
      MaxUint256,
    )
  ).wait();
  return payer;
}

export async function sessionFixture(
  options: {
    players?: number;
    confirmations?: { below?: string; blocks: number }[];
    env?: Record<string, string>;
    /** Browser-facing routes to mount (the hosted page: `webPages`). */
    pages?: (app: App) => PageHandler[];
    /** The node the service talks to (a lying proxy in front of anvil); default anvil itself. */
    rpcUrl?: string;
  } = {},
): Promise<SessionFixture> {
  const node = await workerAnvil();
  const provider = new JsonRpcProvider(node.rpcUrl, node.chainId, { staticNetwork: true, cacheTimeout: -1 });
  provider.pollingInterval = 20;
  const deployer = await ethWallet(provider);
  const contracts = await deployDevContracts(deployer, {
    tokens: [...DEFAULT_DEV_TOKENS],
    feeWallet: deployer.address,
  });
  const networks = networkFileSchema.parse({
    networks: [
      {
        id: 'eth',
        kind: 'evm',
        chainId: node.chainId,
        rpcUrls: [options.rpcUrl ?? node.rpcUrl],
        confirmations: options.confirmations ?? [
          { below: '1000', blocks: 3 },
          { below: '10000', blocks: 12 },
          { blocks: 30 },
        ],
        tokens: Object.values(contracts.tokens).map((t) => ({
          symbol: t.symbol,
          address: t.address,
          decimals: t.decimals,
        })),
        contracts: { paymentRouter: contracts.paymentRouter, multicall3: contracts.multicall3 },
        pollIntervalMs: 50,
      },
      // A network without a payment router: sessions must refuse it.
      { id: 'tron', kind: 'tron', chainId: 728126428, rpcUrls: ['http://127.0.0.1:9'], tokens: [] },
    ],
  });
  const players = await Promise.all(Array.from({ length: options.players ?? 2 }, () => ethWallet(provider)));
  await fundPlayers(
    deployer,
    contracts.tokens,
    players.map((p) => p.address),
    '1000',
  );
  const startBlock = await provider.getBlockNumber();
  const t = await startTestApp({ networks, env: options.env, pages: options.pages });
  const merchant = await t.merchant('Session merchant');
  const settlement = Wallet.createRandom().address;
  await t.app.services.merchants.setSettlementWallet(t.app.fork(), merchant.id, 'eth', settlement);
  return {
    t,
    provider,
    deployer,
    contracts,
    networks,
    merchant,
    settlement: settlement.toLowerCase(),
    startBlock,
    players,
    async call(path, body) {
      const res = await t.signed(merchant, 'POST', path, body);
      return { status: res.status, body: (await res.json()) as StepBody };
    },
    close: () => t.close(),
  };
}

/** Sends a wallet action's `eth_sendTransaction` from `wallet` exactly as a browser wallet would. */
export async function sendWalletAction(
  wallet: Wallet,
  action: WalletActionBody | null | undefined,
): Promise<string> {
  if (action?.method !== 'eth_sendTransaction') throw new Error(`unexpected wallet action ${action?.method}`);
  const tx = action.params[0]!;
  if (tx.from.toLowerCase() !== wallet.address.toLowerCase())
    throw new Error('wallet action for another wallet');
  const nonce = Number(
    BigInt(
      await (wallet.provider as JsonRpcProvider).send('eth_getTransactionCount', [wallet.address, 'pending']),
    ),
  );
  const sent = await wallet.sendTransaction({
    to: tx.to,
    data: tx.data,
    value: BigInt(tx.value),
    nonce,
    gasLimit: 300_000n,
  });
  await sent.wait();
  return sent.hash;
}

/** A token contract bound to `runner`. */
export const token = (address: string, runner: Wallet) => contractAt('TestToken', address, runner);

export interface FollowerTestOptions {
  /** Wall clock of expiry and mining timeouts. */
  now?: () => Date;
  /** Log-scan tuning (small chunks make one tick many transactions). */
  logs?: Partial<LogScanOptions>;
  /** Runs inside every follower transaction, first (a throw rolls it back: a crash inside). */
  fence?: (tx: EntityManager) => Promise<void>;
  maxBlocksPerTick?: number;
  /** The follower's lag bound for idle blocks (src/followers: MAX_UNSAVED_MS, MAX_UNSAVED_BLOCKS). */
  maxUnsavedMs?: number;
  maxUnsavedBlocks?: number;
  /** Where the follower's entity managers come from (tests count what runs in its transactions). */
  fork?: () => EntityManager;
  /** Wraps the sessions consumer (tests make it fail at a chosen point). */
  wrap?: (consumer: Consumer) => Consumer;
}

/** What one tick did to this fixture's sessions, observed in the database. */
export interface PassResult extends TickResult {
  /** Sessions that got a payment. */
  payments: number;
  completed: string[];
  failed: string[];
  /** Sessions whose payment was taken away by a reorganisation. */
  reorged: string[];
}

/**
 * This fixture's chain follower on `eth` with the sessions consumer, starting at the block the
 * fixture's contracts were deployed in; `pass()` is one tick. Leadership is not under test here
 * (no fence unless given): leadership.test.ts covers it.
 */
export function followerOf(f: SessionFixture, options: FollowerTestOptions = {}) {
  const app = f.t.app;
  const network = app.services.sessionChains.network('eth');
  const clients = options.logs ? new ChainClients(app.logger, options.logs) : app.services.chainClients;
  const follower = createFollower({
    network,
    source: evmSource(clients.evm(network), network),
    consumers: [
      (options.wrap ?? ((c: Consumer) => c))(
        sessionConsumer(
          {
            chains: app.services.sessionChains,
            config: app.config,
            logger: app.logger,
            startBlock: f.startBlock,
            now: options.now,
          },
          network,
        ),
      ),
    ],
    fork: options.fork ?? (() => app.fork()),
    fence: options.fence ?? (async () => {}),
    logger: app.logger,
    maxBlocksPerTick: options.maxBlocksPerTick,
    maxUnsavedMs: options.maxUnsavedMs,
    maxUnsavedBlocks: options.maxUnsavedBlocks,
  });
  const states = async () =>
    new Map(
      (
        await app
          .fork()
          .execute<{ id: string; status: string; payment_id: string | null }[]>(
            'select id, status, payment_id from sessions',
          )
      ).map((r) => [r.id, r]),
    );
  return {
    follower,
    async pass(): Promise<PassResult> {
      const before = await states();
      const tick = await follower.tick();
      const after = await states();
      const result: PassResult = { ...tick, payments: 0, completed: [], failed: [], reorged: [] };
      for (const [id, now] of after) {
        const was = before.get(id);
        if (now.status === 'completed' && was?.status !== 'completed') result.completed.push(id);
        if (now.status === 'failed' && was?.status !== 'failed') result.failed.push(id);
        if (now.payment_id && now.payment_id !== was?.payment_id) result.payments++;
        if (was?.payment_id && !now.payment_id) result.reorged.push(id);
      }
      return result;
    },
  };
}

/** `POST /v1/cashier/step` as the merchant; throws unless it answers 200, with the action and the body. */
export async function step(
  f: SessionFixture,
  session: string,
  action: string,
  value?: string,
): Promise<StepBody> {
  const res = await f.call('/v1/cashier/step', {
    session,
    action,
    ...(value === undefined ? {} : { value }),
  });
  if (res.status !== 200) throw new Error(`${action}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Mines `n` empty blocks. */
export async function mine(f: SessionFixture, n: number): Promise<void> {
  await f.provider.send('anvil_mine', [`0x${n.toString(16)}`]);
}

/** Webhook bodies queued for a session, oldest first. */
export async function webhooksOf(f: SessionFixture, sessionId: string): Promise<Record<string, unknown>[]> {
  const rows = await f.t.app
    .fork()
    .execute<{ body: string }[]>('select body from webhook_events where subject_id = ? order by created_at', [
      sessionId,
    ]);
  return rows.map((r) => JSON.parse(r.body) as Record<string, unknown>);
}

/** The session row as operators see it, with the payment that pays it. */
export async function sessionRow(f: SessionFixture, id: string) {
  const session = await f.t.app.fork().findOneOrFail(Session, { id }, { populate: ['payment'] });
  return Object.assign(session, {
    txHash: session.payment?.txHash ?? null,
    blockHash: session.payment?.blockHash ?? null,
    blockNumber: session.payment?.blockNumber ?? null,
    paidRaw: session.payment?.amountRaw ?? null,
  });
}
