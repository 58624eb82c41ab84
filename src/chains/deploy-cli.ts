import { readFileSync, writeFileSync } from 'node:fs';
import { JsonRpcProvider, Wallet } from 'ethers';
import { ConfigError } from '../config.ts';
import {
  type DeployTarget,
  deployGateway,
  deployOptionsOf,
  evmDeployTarget,
  type GatewayDeployment,
} from './deploy.ts';
import { type NetworkConfig, networkFileSchema } from './networks.ts';
import { contractExists, tronDeployTarget } from './tron/deploy.ts';
import { createTronHttp } from './tron/http.ts';

/**
 * `npm run cli -- contracts:deploy`: deploys the gateway's contracts to one network of a network file
 * (an EVM JSON-RPC node, or a Tron node's HTTP API), from the key in `keyFile` (64 hex characters, 0x optional; a file, so it never sits in the shell history or
 * the environment), verifies them with reads, and writes their addresses into that network's
 * `contracts` and its `feeWallet` (the rest of the file is kept as it was). The key pays the gas and
 * owns the factory unless `owner` is given; the network's relayer wallet is made a sweeper.
 */
export async function deployToNetwork(opts: {
  file: string;
  network: string;
  keyFile: string;
  feeWallet: string;
  owner?: string;
  sweepers?: readonly string[];
  progress?: (step: string) => void;
}): Promise<GatewayDeployment & { network: string; file: string }> {
  const raw = JSON.parse(readFileSync(opts.file, 'utf8')) as { networks: Record<string, unknown>[] };
  const parsed = networkFileSchema.parse(raw);
  const index = parsed.networks.findIndex((n) => n.id === opts.network);
  if (index < 0) throw new ConfigError(`${opts.file} has no network "${opts.network}"`);
  const network = parsed.networks[index]!;
  // 64 hex characters, with or without 0x (key exports come both ways).
  const text = readFileSync(opts.keyFile, 'utf8').trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(text))
    throw new ConfigError(`${opts.keyFile}: expected a private key of 64 hex characters (0x optional)`);
  const key = text.startsWith('0x') ? text : `0x${text}`;
  const { target, close } = await targetOf(network, key, opts.progress);
  try {
    const deployment = await deployGateway(target, {
      ...deployOptionsOf(network, opts),
      ...(opts.progress ? { progress: opts.progress } : {}),
    });
    const entry = raw.networks[index]!;
    entry.contracts = { ...(entry.contracts as object | undefined), ...deployment };
    entry.feeWallet = opts.feeWallet;
    writeFileSync(opts.file, `${JSON.stringify(raw, null, 2)}\n`);
    return { network: network.id, file: opts.file, ...deployment };
  } finally {
    close();
  }
}

/**
 * The deploy target of `network`, once the node is shown to serve it: on EVM the chain id must match;
 * a Tron node has no chain id to ask, so every token of the entry must be a contract there (a Nile
 * file pointed at a mainnet node fails here, before anything is spent).
 */
async function targetOf(
  network: NetworkConfig,
  key: string,
  progress?: (step: string) => void,
): Promise<{ target: DeployTarget; close: () => void }> {
  if (network.kind === 'tron') {
    const http = createTronHttp({ network });
    for (const token of network.tokens)
      if (!(await contractExists(http, token.address)))
        throw new ConfigError(
          `${network.rpcUrls[0]} has no contract at ${network.id}'s ${token.symbol} address ${token.address}: is it a node of ${network.id}?`,
        );
    const tuning = network.relay.feeLimitSun;
    return {
      target: tronDeployTarget(http, key, {
        ...(tuning === undefined ? {} : { feeLimitSun: tuning }),
        ...(progress ? { progress } : {}),
      }),
      close: () => {},
    };
  }
  const provider = new JsonRpcProvider(network.rpcUrls[0], network.chainId, { staticNetwork: true });
  try {
    const chainId = Number(await provider.send('eth_chainId', []));
    if (chainId !== network.chainId)
      throw new ConfigError(
        `${network.rpcUrls[0]} serves chain ${chainId}, not ${network.id}'s ${network.chainId}`,
      );
    return { target: await evmDeployTarget(new Wallet(key, provider)), close: () => provider.destroy() };
  } catch (error) {
    provider.destroy();
    throw error;
  }
}
