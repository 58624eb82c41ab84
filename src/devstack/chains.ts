import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { type AnvilNode, startAnvil } from '../chains/anvil.ts';
import type { NetworkFile } from '../chains/networks.ts';
import { networkFileSchema } from '../chains/networks.ts';
import type { Logger } from '../lib/logger.ts';
import { DEV_ACCOUNTS } from './accounts.ts';
import { DEFAULT_DEV_TOKENS, type DevContracts, deployDevContracts, fundPlayers } from './deploy.ts';
import { DEV_BLOCK_TIME_S, startTronDevNode, type TronDevNode } from './tron-facade/dev-node.ts';

/** Local chains of the embedded stack: `eth` and `bsc` on anvil, `tron` on the facade (D10). */
const EVM_CHAINS = [
  { id: 'eth', chainId: 31337 },
  { id: 'bsc', chainId: 31338 },
] as const;
/** Seconds between dev blocks, so confirmations accrue without traffic. */
const BLOCK_TIME_S = 1;
/** Whole units of every token each demo player starts with. */
const PLAYER_FUNDING = '100000';
/** Whole units of every token the demo merchant's payout wallets start with. */
const MERCHANT_FUNDING = '100000';
/** Small dev confirmation tiers, so a demo payment settles in seconds. */
const DEV_CONFIRMATIONS = [{ below: '1000', blocks: 2 }, { below: '10000', blocks: 4 }, { blocks: 6 }];
/** Blocks behind the head a dev block is final: anvil's `finalized` lag with two-slot epochs. */
const DEV_FINALITY_DEPTH = 4;
const DEPOSIT_FEE = { USDT: '0.5', USDC: '0.5', DAI: '0.5' } as Record<string, string>;

export interface DevChain {
  id: string;
  kind: 'evm' | 'tron';
  chainId: number;
  /** What the service talks to: anvil JSON-RPC, or the Tron facade's HTTP API. */
  rpcUrl: string;
  /** The EVM JSON-RPC endpoint under it (the same as rpcUrl for EVM chains). */
  evmRpcUrl: string;
  contracts: DevContracts;
}

export interface DevChains {
  chains: DevChain[];
  networks: NetworkFile;
  stop(): Promise<void>;
}

/**
 * Starts the local chains with their state kept under `dir`, deploying contracts and funding players
 * on first start and reusing them afterwards (a deployment is reused only if its code is still there).
 */
export async function startDevChains(dir: string, logger: Logger): Promise<DevChains> {
  mkdirSync(dir, { recursive: true });
  const nodes: Array<AnvilNode | TronDevNode> = [];
  const started = <T extends AnvilNode | TronDevNode>(node: T): T => {
    nodes.push(node);
    return node;
  };
  // The three chains start and deploy side by side: nothing of one waits on another.
  const evm = EVM_CHAINS.map(async (chain): Promise<DevChain> => {
    const node = started(
      await startAnvil({
        chainId: chain.chainId,
        blockTime: BLOCK_TIME_S,
        stateFile: path.join(dir, `${chain.id}.anvil.json`),
        // anvil's `finalized` block is two epochs behind the head: 4 blocks, so deposits to standing
        // addresses are credited seconds after they land (mainnet Ethereum: about 13 minutes).
        args: ['--slots-in-an-epoch', '2'],
      }),
    );
    const contracts = await ensureDeployed(
      node.rpcUrl,
      path.join(dir, `${chain.id}.deployment.json`),
      logger,
    );
    return {
      id: chain.id,
      kind: 'evm',
      chainId: chain.chainId,
      rpcUrl: node.rpcUrl,
      evmRpcUrl: node.rpcUrl,
      contracts,
    };
  });
  const tron = (async (): Promise<DevChain> => {
    const node = started(await startTronDevNode({ stateBase: path.join(dir, 'tron') }));
    const contracts = await ensureDeployed(
      node.anvilRpcUrl,
      path.join(dir, 'tron.deployment.json'),
      logger,
      true,
    );
    return {
      id: 'tron',
      kind: 'tron',
      chainId: node.chainId,
      rpcUrl: node.url,
      evmRpcUrl: node.anvilRpcUrl,
      contracts,
    };
  })();
  const results = await Promise.allSettled([...evm, tron]);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(nodes.map((n) => n.stop()));
    throw failed.reason;
  }
  const chains = results.map((r) => (r as PromiseFulfilledResult<DevChain>).value);
  const networks = networkFileFor(chains);
  // The same network file a real deployment is given: an example of the format, and what
  // `npm run worker` needs to join the embedded stack from another process.
  writeFileSync(path.join(dir, '..', 'networks.json'), `${JSON.stringify(networks, null, 2)}\n`);
  return {
    chains,
    networks,
    stop: async () => {
      await Promise.allSettled(nodes.map((n) => n.stop()));
    },
  };
}

/**
 * Bumped whenever the dev contracts or their setup change: a data directory deployed by an older
 * version gets a fresh deployment instead of contracts the service no longer matches.
 */
const DEPLOYMENT_VERSION = 2;

async function ensureDeployed(
  rpcUrl: string,
  file: string,
  logger: Logger,
  tron = false,
): Promise<DevContracts> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, {
    staticNetwork: true,
    polling: true,
    pollingInterval: 200,
  });
  try {
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as DevContracts & { version?: number };
      if (saved.version !== DEPLOYMENT_VERSION) {
        logger.warn('dev contracts are from an older version; deploying again', { rpcUrl });
      } else if ((await provider.getCode(saved.paymentRouter)) !== '0x') {
        return saved;
      } else {
        logger.warn('dev chain lost its contracts; deploying again', { rpcUrl });
      }
    }
    const deployer = new Wallet(DEV_ACCOUNTS.deployer.privateKey, provider);
    // Each transaction mined as it is sent, not on the next 1 s block: a dozen of them in a row made a
    // fresh start wait that many seconds per chain. Blocks come every second again afterwards.
    await provider.send('evm_setAutomine', [true]);
    try {
      return await deploy(deployer, file, logger, rpcUrl, tron);
    } finally {
      await provider.send('evm_setIntervalMining', [tron ? DEV_BLOCK_TIME_S : BLOCK_TIME_S]);
    }
  } finally {
    provider.destroy();
  }
}

async function deploy(
  deployer: Wallet,
  file: string,
  logger: Logger,
  rpcUrl: string,
  tron: boolean,
): Promise<DevContracts> {
  const contracts = await deployDevContracts(deployer, {
    tokens: DEFAULT_DEV_TOKENS.map((t) => ({ ...t, depositFee: DEPOSIT_FEE[t.symbol] ?? '0' })),
    feeWallet: DEV_ACCOUNTS.feeWallet.address,
    sweepers: [DEV_ACCOUNTS.relayer.address],
    tronQuirks: tron,
  });
  await fundPlayers(
    deployer,
    contracts.tokens,
    DEV_ACCOUNTS.players.map((p) => p.address),
    PLAYER_FUNDING,
  );
  // The demo merchant pays out from its payout wallets (EVM: the settlement wallet; tron: its own).
  await fundPlayers(
    deployer,
    contracts.tokens,
    [DEV_ACCOUNTS.merchant.address, DEV_ACCOUNTS.tronPayout.address],
    MERCHANT_FUNDING,
  );
  writeFileSync(file, `${JSON.stringify({ version: DEPLOYMENT_VERSION, ...contracts }, null, 2)}\n`);
  logger.info('deployed dev contracts', { rpcUrl, paymentRouter: contracts.paymentRouter });
  return contracts;
}

function networkFileFor(chains: DevChain[]): NetworkFile {
  return networkFileSchema.parse({
    networks: chains.map((chain) => ({
      id: chain.id,
      kind: chain.kind,
      chainId: chain.chainId,
      rpcUrls: [chain.rpcUrl],
      confirmations: DEV_CONFIRMATIONS,
      // The service's finality rule takes the more conservative of the node's `finalized` block and
      // this depth: anvil's own lag here (--slots-in-an-epoch 2), not the default of 64 blocks.
      finalityDepth: DEV_FINALITY_DEPTH,
      // The default poll (2 s): each tick takes the two 1 s blocks in one transaction per consumer, which
      // halves what the idle stack costs, for a second more before a demo payment is seen.
      tokens: Object.values(chain.contracts.tokens).map((t) => ({
        symbol: t.symbol,
        address: t.address,
        decimals: t.decimals,
        depositFee: DEPOSIT_FEE[t.symbol] ?? '0',
      })),
      contracts: {
        ...(chain.kind === 'evm'
          ? { paymentRouter: chain.contracts.paymentRouter, multicall3: chain.contracts.multicall3 }
          : {}),
        payoutRouter: chain.contracts.payoutRouter,
        batchPayoutRouter: chain.contracts.batchPayoutRouter,
        forwarderFactory: chain.contracts.forwarderFactory,
        forwarderImplementation: chain.contracts.forwarderImplementation,
      },
      // The development Tron chain is anvil behind the facade: its CREATE2 is the EVM rule.
      ...(chain.kind === 'tron' ? { create2Prefix: '0xff' } : {}),
      feeWallet: DEV_ACCOUNTS.feeWallet.address,
      relayerPrivateKey: DEV_ACCOUNTS.relayer.privateKey,
    })),
  });
}
