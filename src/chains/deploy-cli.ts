import { readFileSync, writeFileSync } from 'node:fs';
import { JsonRpcProvider, Wallet } from 'ethers';
import { ConfigError } from '../config.ts';
import { deployGateway, deployOptionsOf, type GatewayDeployment } from './deploy.ts';
import { networkFileSchema } from './networks.ts';

/**
 * `npm run cli -- contracts:deploy`: deploys the gateway's contracts to one network of a network file,
 * from the key in `keyFile` (a 0x-hex private key; a file, so it never sits in the shell history or
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
  if (network.kind !== 'evm')
    throw new ConfigError(
      `contracts:deploy deploys to EVM JSON-RPC networks; ${network.id} is ${network.kind}: deploying through the Tron HTTP API is not supported yet (see README, Going to production)`,
    );
  const key = readFileSync(opts.keyFile, 'utf8').trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(key))
    throw new ConfigError(`${opts.keyFile}: expected a 0x-hex private key`);
  const provider = new JsonRpcProvider(network.rpcUrls[0], network.chainId, { staticNetwork: true });
  const chainId = Number(await provider.send('eth_chainId', []));
  if (chainId !== network.chainId)
    throw new ConfigError(
      `${network.rpcUrls[0]} serves chain ${chainId}, not ${network.id}'s ${network.chainId}`,
    );
  try {
    const deployment = await deployGateway(new Wallet(key, provider), {
      ...deployOptionsOf(network, opts),
      ...(opts.progress ? { progress: opts.progress } : {}),
    });
    const entry = raw.networks[index]!;
    entry.contracts = { ...(entry.contracts as object | undefined), ...deployment };
    entry.feeWallet = opts.feeWallet;
    writeFileSync(opts.file, `${JSON.stringify(raw, null, 2)}\n`);
    return { network: network.id, file: opts.file, ...deployment };
  } finally {
    provider.destroy();
  }
}
