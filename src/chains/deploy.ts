import { getAddress, type Signer, Wallet } from 'ethers';
import { parseUnits } from '../money.ts';
import { contractAt, deployContract, pendingNonce } from './contracts.ts';
import { create2PrefixOf, type NetworkConfig } from './networks.ts';

/**
 * Deploys the gateway's contracts to an EVM chain: PaymentRouter, PayoutRouter, BatchPayoutRouter and
 * ForwarderFactory (which deploys its DepositForwarder implementation), with the chain's CREATE2 prefix,
 * the sweepers and per-token fees set, ownership moved last; then reads every setting back. The
 * embedded stack and `npm run cli -- contracts:deploy` both use it.
 */

export interface GatewayDeployment {
  paymentRouter: string;
  payoutRouter: string;
  batchPayoutRouter: string;
  forwarderFactory: string;
  /** The DepositForwarder implementation the factory clones. */
  forwarderImplementation: string;
}

export interface GatewayDeployOptions {
  /** Receives the deposit-forwarder fees. */
  feeWallet: string;
  /** `0xff` on EVM chains, `0x41` on the TVM. */
  create2Prefix: '0xff' | '0x41';
  /** Per-token fee per deposit, base units. */
  fees?: readonly { token: string; raw: bigint }[];
  /** Accounts allowed to sweep (the service's relayer wallet). */
  sweepers?: readonly string[];
  /** Owner of the factory once configured; default the deploying signer. */
  owner?: string;
  /** Told each step as it is done. */
  progress?: (step: string) => void;
}

export async function deployGateway(signer: Signer, opts: GatewayDeployOptions): Promise<GatewayDeployment> {
  const say = opts.progress ?? (() => {});
  const deployer = await signer.getAddress();
  const deployed = async (name: 'PaymentRouter' | 'PayoutRouter' | 'BatchPayoutRouter') => {
    const { address } = await deployContract(signer, name);
    say(`${name} ${address}`);
    return address;
  };
  const paymentRouter = await deployed('PaymentRouter');
  const payoutRouter = await deployed('PayoutRouter');
  const batchPayoutRouter = await deployed('BatchPayoutRouter');
  const factory = await deployContract(signer, 'ForwarderFactory', factoryArgs(deployer, opts));
  say(`ForwarderFactory ${factory.address}`);
  const call = async (fn: string, ...args: unknown[]) => {
    const nonce = await pendingNonce(signer);
    const receipt = await (await factory.contract.getFunction(fn)(...args, { nonce })).wait();
    if (receipt?.status !== 1) throw new Error(`ForwarderFactory.${fn} failed`);
  };
  for (const { token, raw } of opts.fees ?? []) if (raw > 0n) await call('setFee', token, raw);
  for (const sweeper of opts.sweepers ?? []) await call('setSweeper', sweeper, true);
  const owner = opts.owner ? getAddress(opts.owner) : deployer;
  if (owner !== deployer) await call('transferOwnership', owner);
  const forwarderImplementation = getAddress(String(await factory.contract.getFunction('implementation')()));
  const deployment = {
    paymentRouter,
    payoutRouter,
    batchPayoutRouter,
    forwarderFactory: factory.address,
    forwarderImplementation,
  };
  await verifyGateway(signer, deployment, { ...opts, owner });
  say('verified');
  return deployment;
}

/** The ForwarderFactory's constructor arguments, in one place. */
export const factoryArgs = (
  deployer: string,
  opts: Pick<GatewayDeployOptions, 'feeWallet' | 'create2Prefix'>,
) => [deployer, opts.feeWallet, opts.create2Prefix];

/**
 * Reads a deployment back: code at every address, and the factory's prefix, fee wallet, fees,
 * sweepers and owner as asked. Throws naming the first thing that differs.
 */
export async function verifyGateway(
  runner: Signer,
  d: GatewayDeployment,
  opts: GatewayDeployOptions & { owner: string },
): Promise<void> {
  const provider = runner.provider!;
  for (const [name, address] of Object.entries(d))
    if ((await provider.getCode(address)) === '0x') throw new Error(`${name}: no code at ${address}`);
  const factory = contractAt('ForwarderFactory', d.forwarderFactory, runner);
  const read = async (fn: string, ...args: unknown[]) => factory.getFunction(fn)(...args) as Promise<unknown>;
  const expect = (what: string, got: unknown, want: unknown) => {
    if (String(got).toLowerCase() !== String(want).toLowerCase())
      throw new Error(`ForwarderFactory ${what} reads ${String(got)}, not ${String(want)}`);
  };
  expect('create2Prefix', await read('create2Prefix'), opts.create2Prefix);
  expect('feeWallet', await read('feeWallet'), opts.feeWallet);
  expect('owner', await read('owner'), opts.owner);
  expect('implementation', await read('implementation'), d.forwarderImplementation);
  for (const { token, raw } of opts.fees ?? []) expect(`fee of ${token}`, await read('fee', token), raw);
  for (const s of opts.sweepers ?? []) expect(`isSweeper(${s})`, await read('isSweeper', s), true);
}

/** What a network file's entry says about a deployment: the chain's prefix, fees and relayer. */
export function deployOptionsOf(
  network: NetworkConfig,
  opts: { feeWallet: string; owner?: string; sweepers?: readonly string[] },
): GatewayDeployOptions {
  const relayer = network.relayerPrivateKey ? new Wallet(network.relayerPrivateKey).address : undefined;
  return {
    feeWallet: opts.feeWallet,
    create2Prefix: create2PrefixOf(network),
    fees: network.tokens.map((t) => ({ token: t.address, raw: parseUnits(t.depositFee, t.decimals) })),
    sweepers: [...new Set([...(relayer ? [relayer] : []), ...(opts.sweepers ?? [])])],
    ...(opts.owner ? { owner: opts.owner } : {}),
  };
}
