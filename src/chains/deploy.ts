import { getAddress, Interface, type Signer, Wallet } from 'ethers';
import { parseUnits } from '../money.ts';
import { abi, type ContractName, deployContract, pendingNonce } from './contracts.ts';
import { create2PrefixOf, type NetworkConfig } from './networks.ts';

/**
 * Deploys the gateway's contracts: PaymentRouter, PayoutRouter, BatchPayoutRouter and
 * ForwarderFactory (which deploys its DepositForwarder implementation), with the chain's CREATE2 prefix,
 * the sweepers and per-token fees set, ownership moved last; then reads every setting back. One
 * algorithm for every chain: an EVM JSON-RPC node ({@link evmDeployTarget}) or a Tron node's HTTP API
 * (`tronDeployTarget`). The embedded stack and `npm run cli -- contracts:deploy` both use it.
 */

export interface GatewayDeployment {
  paymentRouter: string;
  payoutRouter: string;
  batchPayoutRouter: string;
  forwarderFactory: string;
  /** The DepositForwarder implementation the factory clones. */
  forwarderImplementation: string;
}

/** A chain and the account deploying to it. Addresses are `0x` hex; calldata and results `0x` hex. */
export interface DeployTarget {
  /** The deploying account. */
  readonly deployer: string;
  /** Deploys `name` with constructor `args`; the contract's address once it is mined. */
  deploy(name: ContractName, args: readonly unknown[]): Promise<string>;
  /** A call from the deployer, resolved once mined successfully; anything else throws naming `what`. */
  send(to: string, data: string, what: string): Promise<void>;
  /** A read-only call's return data. */
  read(to: string, data: string): Promise<string>;
  hasCode(address: string): Promise<boolean>;
  /** How the chain's people write an address, for progress lines (Tron: base58). */
  display?(address: string): string;
  /** Resolves once everything sent is final, where the chain says so (Tron: solidified). */
  settle?(): Promise<void>;
}

/** The target of an EVM chain: `signer` and its provider. */
export async function evmDeployTarget(signer: Signer): Promise<DeployTarget> {
  const provider = signer.provider;
  if (!provider) throw new Error('the deploying signer needs a provider');
  return {
    deployer: getAddress(await signer.getAddress()),
    deploy: async (name, args) => (await deployContract(signer, name, args)).address,
    async send(to, data, what) {
      const nonce = await pendingNonce(signer);
      const receipt = await (await signer.sendTransaction({ to, data, nonce })).wait();
      if (receipt?.status !== 1) throw new Error(`${what} failed: ${receipt?.hash}`);
    },
    read: (to, data) => provider.call({ to, data }),
    hasCode: async (address) => (await provider.getCode(address)) !== '0x',
  };
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
  /** Owner of the factory once configured; default the deploying account. */
  owner?: string;
  /** Told each step as it is done. */
  progress?: (step: string) => void;
}

const FACTORY = new Interface(abi('ForwarderFactory'));

export async function deployGateway(
  target: DeployTarget,
  opts: GatewayDeployOptions,
): Promise<GatewayDeployment> {
  const say = opts.progress ?? (() => {});
  const deployed = async (name: ContractName, args: readonly unknown[] = []) => {
    const address = getAddress(await target.deploy(name, args));
    say(`${name} ${target.display?.(address) ?? address}`);
    return address;
  };
  const paymentRouter = await deployed('PaymentRouter');
  const payoutRouter = await deployed('PayoutRouter');
  const batchPayoutRouter = await deployed('BatchPayoutRouter');
  const forwarderFactory = await deployed('ForwarderFactory', factoryArgs(target.deployer, opts));
  const call = (fn: string, ...args: unknown[]) =>
    target.send(forwarderFactory, FACTORY.encodeFunctionData(fn, args), `ForwarderFactory.${fn}`);
  for (const { token, raw } of opts.fees ?? []) if (raw > 0n) await call('setFee', token, raw);
  for (const sweeper of opts.sweepers ?? []) await call('setSweeper', sweeper, true);
  const owner = opts.owner ? getAddress(opts.owner) : target.deployer;
  if (owner !== target.deployer) await call('transferOwnership', owner);
  await target.settle?.();
  const [implementation] = FACTORY.decodeFunctionResult(
    'implementation',
    await target.read(forwarderFactory, FACTORY.encodeFunctionData('implementation')),
  );
  const deployment = {
    paymentRouter,
    payoutRouter,
    batchPayoutRouter,
    forwarderFactory,
    forwarderImplementation: getAddress(String(implementation)),
  };
  await verifyGateway(target, deployment, { ...opts, owner });
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
  target: Pick<DeployTarget, 'read' | 'hasCode'>,
  d: GatewayDeployment,
  opts: GatewayDeployOptions & { owner: string },
): Promise<void> {
  for (const [name, address] of Object.entries(d))
    if (!(await target.hasCode(address))) throw new Error(`${name}: no code at ${address}`);
  const read = async (fn: string, ...args: unknown[]) => {
    const out = await target.read(d.forwarderFactory, FACTORY.encodeFunctionData(fn, args));
    return FACTORY.decodeFunctionResult(fn, out)[0] as unknown;
  };
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
