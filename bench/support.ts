import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { JsonRpcProvider, MaxUint256, parseEther, Wallet } from 'ethers';
import { createApp } from '../src/app.ts';
import { startAnvil } from '../src/chains/anvil.ts';
import { contractAt } from '../src/chains/contracts.ts';
import { postJson } from '../src/chains/evm/rpc/http.ts';
import { type NetworkFile, networkFileSchema } from '../src/chains/networks.ts';
import { loadConfig } from '../src/config.ts';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate } from '../src/db/migrate.ts';
import { DEFAULT_DEV_TOKENS, deployDevContracts } from '../src/devstack/deploy.ts';
import { createLogger } from '../src/lib/logger.ts';

/** The project's root directory. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * A package.json script as a program and its arguments, run without npm in between (npm puts
 * node_modules/.bin first on PATH, so `node` is the project's pinned Node).
 */
export function script(name: string): { file: string; args: string[] } {
  const scripts = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const [program, ...args] = scripts[name]!.split(/\s+/);
  return { file: path.join(ROOT, 'node_modules/.bin', program!), args };
}

/** The value below which a fraction `p` of the sorted samples fall (nearest rank); 0 for none. */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface RpcAnswer {
  result?: unknown;
  error?: { message: string };
}

/**
 * A bare JSON-RPC call, for the baselines and for building chains, over the service's own HTTP client
 * (`postJson`: node:http, kept-alive), so a ratio compares the work and not two HTTP clients.
 */
export async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const answer = (await postJson(url, { jsonrpc: '2.0', id: 1, method, params }, 60_000)) as RpcAnswer;
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

/** {@link rpc} for a batch of calls, in one request; throws on the first refused call. */
export async function rpcBatch(
  url: string,
  calls: { method: string; params: unknown[] }[],
): Promise<unknown[]> {
  const answers = (await postJson(
    url,
    calls.map((c, id) => ({ jsonrpc: '2.0', id, ...c })),
    60_000,
  )) as (RpcAnswer & { id: number })[];
  const failed = answers.find((a) => a.error);
  if (failed) throw new Error(`${calls[failed.id]?.method ?? 'a call'}: ${failed.error!.message}`);
  return answers.sort((a, b) => a.id - b.id).map((a) => a.result);
}

/**
 * A payment chain for the follower benches: a fresh anvil with the routers and test tokens deployed,
 * a payer holding `payments` USDC payments of `amount` with the payment router approved for all of
 * them, and the network file of it (`eth`, confirmation `depth`, optional poll interval).
 */
export async function paymentChain(options: {
  payments: number;
  amount: bigint;
  depth: number;
  pollIntervalMs?: number;
}) {
  const anvil = await startAnvil({ chainId: 31337 });
  const provider = new JsonRpcProvider(anvil.rpcUrl, 31337, { staticNetwork: true, cacheTimeout: -1 });
  const deployer = await richWallet(provider);
  const contracts = await deployDevContracts(deployer, {
    tokens: [...DEFAULT_DEV_TOKENS],
    feeWallet: deployer.address,
  });
  const usdc = contracts.tokens.USDC!;
  const payer = await richWallet(provider);
  const total = BigInt(options.payments) * options.amount;
  await (
    await contractAt('TestToken', usdc.address, deployer).getFunction('mint')(payer.address, total)
  ).wait();
  await (
    await contractAt('TestToken', usdc.address, payer).getFunction('approve')(contracts.paymentRouter, total)
  ).wait();
  const networks = networkFileSchema.parse({
    networks: [
      {
        id: 'eth',
        kind: 'evm',
        chainId: 31337,
        rpcUrls: [anvil.rpcUrl],
        confirmations: [{ blocks: options.depth }],
        tokens: Object.values(contracts.tokens).map((t) => ({
          symbol: t.symbol,
          address: t.address,
          decimals: t.decimals,
        })),
        contracts: { paymentRouter: contracts.paymentRouter, multicall3: contracts.multicall3 },
        ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
      },
    ],
  });
  return { anvil, provider, deployer, contracts, usdc, payer, networks };
}

async function richWallet(provider: JsonRpcProvider): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [wallet.address, `0x${parseEther('1000').toString(16)}`]);
  return wallet;
}

/**
 * The payout benches' stack: an embedded PostgreSQL with a migrated `bench` database, a fresh anvil
 * mining a block every second (once the set-up is mined) with the routers and test tokens deployed, a payout wallet (`payer`)
 * holding USDT with `router` approved, a funded relayer, and the network file of it (depth 1).
 */
export async function payoutStack(name: string, router: 'payoutRouter' | 'batchPayoutRouter') {
  const dir = mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
  // Set-up transactions are mined as they come (automine); the 1 s blocks start once it is done, so
  // the set-up does not wait a block for each of its dozen transactions.
  const [db, anvil] = await Promise.all([
    startEmbeddedPostgres({ dir: path.join(dir, 'pg'), persistent: false }),
    startAnvil({ chainId: 31337 }),
  ]);
  const provider = new JsonRpcProvider(anvil.rpcUrl, 31337, { staticNetwork: true, cacheTimeout: -1 });
  const stop = async () => {
    provider.destroy();
    await anvil.stop();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The database is created and migrated while the chain is set up.
    const database = db.createDatabase('bench').then(async (url) => {
      await migrate(url);
      return url;
    });
    database.catch(() => {});
    const rich = () => richWallet(provider);
    const deployer = await rich();
    const contracts = await deployDevContracts(deployer, {
      tokens: [...DEFAULT_DEV_TOKENS],
      feeWallet: deployer.address,
    });
    const payer = await rich();
    const relayer = await rich();
    const usdt = contracts.tokens.USDT!.address;
    await (
      await contractAt('TestToken', usdt, deployer).getFunction('mint')(payer.address, 10n ** 15n)
    ).wait();
    await (
      await contractAt('TestToken', usdt, payer).getFunction('approve')(contracts[router], MaxUint256)
    ).wait();
    const url = await database;
    await provider.send('evm_setIntervalMining', [1]);
    const networks = networkFileSchema.parse({
      networks: [
        {
          id: 'eth',
          kind: 'evm',
          chainId: 31337,
          rpcUrls: [anvil.rpcUrl],
          confirmations: [{ blocks: 1 }],
          tokens: Object.values(contracts.tokens).map((t) => ({
            symbol: t.symbol,
            address: t.address,
            decimals: t.decimals,
          })),
          contracts: {
            payoutRouter: contracts.payoutRouter,
            batchPayoutRouter: contracts.batchPayoutRouter,
            multicall3: contracts.multicall3,
          },
          relayerPrivateKey: relayer.privateKey,
          pollIntervalMs: 200,
        },
      ],
    });
    return { dir, provider, contracts, payer, relayer, rich, url, networks, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The service on a migrated bench database `url` (no worker, quiet logs) with one merchant holding an
 * API key, its webhooks going nowhere reachable.
 */
export async function benchApp(url: string, networks: NetworkFile, env: Record<string, string> = {}) {
  await migrate(url);
  const config = loadConfig({
    DATABASE_URL: url,
    NETWORKS_FILE: '(bench)',
    SECRETS_KEY: randomBytes(32).toString('hex'),
    RUN_WORKER: 'false',
    LOG_LEVEL: 'error',
    // Its webhooks go to a loopback port nothing listens on.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...env,
  });
  const app = await createApp({ config, networks, logger: createLogger('error') });
  const merchant = await app.services.merchants.create(app.fork(), {
    name: 'Bench',
    webhookUrl: 'http://127.0.0.1:9/hook',
  });
  await app.services.merchants.issueKey(app.fork(), merchant.id);
  return { app, config, merchant };
}

const CLOCK_TICKS = 100;

/**
 * CPU milliseconds (user + system) used so far by one process and by its children that exited and were
 * waited for, from /proc; 0 where there is none. The reaped children count so that a tree's total never
 * drops when one of them exits (a PostgreSQL backend closing mid-window).
 */
function procCpu(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

function allPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
}

/** The postmaster of the PostgreSQL in `dataDir` (first line of its postmaster.pid). */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}

/** CPU ms of a process and its descendants (the tsx wrapper runs the server in a child). */
export function treeCpu(root: number): number {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {}
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    total += procCpu(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}
