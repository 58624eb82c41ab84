/**
 * Compiled contract artifacts (`contracts/artifacts/*.json`, produced by `npm run contracts:compile`)
 * and a typed deploy helper on top of ethers.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  Contract,
  ContractFactory,
  type ContractRunner,
  type InterfaceAbi,
  type Overrides,
  type Signer,
} from 'ethers';

/** Every contract we compile and ship an artifact for. */
export type ContractName =
  | 'TestToken'
  | 'TetherToken'
  | 'Multicall3'
  | 'PaymentRouter'
  | 'PayoutRouter'
  | 'BatchPayoutRouter'
  | 'ForwarderFactory'
  | 'DepositForwarder'
  /** Test-only token with misbehaving transfers (returns false, reverts empty, re-enters). */
  | 'QuirkyToken'
  /** Benchmark baseline: a port of Uniswap Permit2's SignatureTransfer (bench/gas.ts). */
  | 'Permit2SignatureTransfer';

/** Shape of an artifact file. */
export interface ContractArtifact {
  contractName: string;
  abi: InterfaceAbi;
  /** Creation code, `0x` hex. */
  bytecode: string;
  /** Runtime code, `0x` hex; what `eth_getCode` returns after deployment. */
  deployedBytecode: string;
  /** sha256 of compiler version, settings and the sources the contract was built from. */
  sourceHash: string;
}

const ARTIFACTS_DIR = new URL('../../contracts/artifacts/', import.meta.url);
const cache = new Map<ContractName, ContractArtifact>();

/** Loads (once) and returns the artifact of `name`. Throws when it was never compiled. */
export function artifact(name: ContractName): ContractArtifact {
  let a = cache.get(name);
  if (!a) {
    const file = fileURLToPath(new URL(`${name}.json`, ARTIFACTS_DIR));
    a = JSON.parse(readFileSync(file, 'utf8')) as ContractArtifact;
    cache.set(name, a);
  }
  return a;
}

/** The ABI of `name`, for `new Interface(abi(name))` or `new Contract(address, abi(name), runner)`. */
export function abi(name: ContractName): InterfaceAbi {
  return artifact(name).abi;
}

/** A contract bound to an existing deployment. */
export function contractAt(name: ContractName, address: string, runner?: ContractRunner | null): Contract {
  return new Contract(address, artifact(name).abi, runner ?? null);
}

/** Result of {@link deployContract}. */
export interface DeployedContract {
  /** The deployed contract, connected to the deploying signer. */
  contract: Contract;
  /** Checksummed address. */
  address: string;
  /** Hash of the deployment transaction. */
  txHash: string;
}

/**
 * The signer's next nonce, read straight from the node. ethers' providers dedupe identical requests for
 * 250 ms by default, so on an automining chain `getNonce()` right after a mined transaction can return the
 * old value and the next send fails with "nonce too low"; a raw `eth_getTransactionCount` is not cached.
 */
export async function pendingNonce(signer: Signer): Promise<number> {
  const provider = signer.provider as {
    send?: (method: string, params: unknown[]) => Promise<unknown>;
  } | null;
  if (provider && typeof provider.send === 'function') {
    const hex = await provider.send('eth_getTransactionCount', [await signer.getAddress(), 'pending']);
    return Number(BigInt(hex as string));
  }
  return signer.getNonce('pending');
}

/**
 * Deploys `name` with constructor `args` from `runner` and waits until it is mined. Unless `overrides`
 * carries one, the nonce is read fresh from the node (see {@link pendingNonce}).
 * `overrides` (e.g. an explicit `nonce`) are passed to the deployment transaction.
 */
export async function deployContract(
  runner: Signer,
  name: ContractName,
  args: readonly unknown[] = [],
  overrides: Overrides = {},
): Promise<DeployedContract> {
  const a = artifact(name);
  const factory = new ContractFactory(a.abi, a.bytecode, runner);
  const nonce = overrides.nonce ?? (await pendingNonce(runner));
  const deployed = await factory.deploy(...args, { ...overrides, nonce });
  await deployed.waitForDeployment();
  const tx = deployed.deploymentTransaction();
  const address = await deployed.getAddress();
  return { contract: new Contract(address, a.abi, runner), address, txHash: tx?.hash ?? '' };
}
