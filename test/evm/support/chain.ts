/**
 * Test plumbing for the EVM adapter: ethers on the worker's anvil (only to set up state and to check
 * results independently of the code under test), fresh funded wallets, token deployments.
 */
import { type Contract, getAddress, hexlify, JsonRpcProvider, parseEther, randomBytes, Wallet } from 'ethers';
import type { AnvilNode } from '../../../src/chains/anvil.ts';
import { deployContract } from '../../../src/chains/contracts.ts';
import type { EvmNetwork } from '../../../src/chains/evm/client.ts';
import { workerAnvil } from '../../support/anvil.ts';

export interface TestChain {
  node: AnvilNode;
  provider: JsonRpcProvider;
}

export function providerFor(node: AnvilNode): JsonRpcProvider {
  const provider = new JsonRpcProvider(node.rpcUrl, node.chainId, { staticNetwork: true, cacheTimeout: -1 });
  provider.pollingInterval = 50;
  return provider;
}

export async function testChain(node?: AnvilNode): Promise<TestChain> {
  const n = node ?? (await workerAnvil());
  return { node: n, provider: providerFor(n) };
}

/** A new random wallet holding `eth` ETH; the node is shared, so every test uses its own accounts. */
export async function fundedWallet(provider: JsonRpcProvider, eth = '100'): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [wallet.address, `0x${parseEther(eth).toString(16)}`]);
  return wallet;
}

/** A random address with no history (no key needed: it only receives or is read). */
export const freshAddress = () => getAddress(hexlify(randomBytes(20)));

/** A network entry for the adapter on `rpcUrls`. */
export function networkOf(node: AnvilNode, rpcUrls: string[], multicall3?: string): EvmNetwork {
  return { id: 'testnet', chainId: node.chainId, rpcUrls, contracts: multicall3 ? { multicall3 } : {} };
}

export interface Tokens {
  /** Plain ERC-20, 18 decimals. */
  dai: Contract;
  /** Plain ERC-20, 6 decimals. */
  usdc: Contract;
  /** USDT-like: no bool returns, owner-only mint. */
  usdt: Contract;
  addresses: { dai: string; usdc: string; usdt: string };
}

export async function deployTokens(deployer: Wallet): Promise<Tokens> {
  const dai = await deployContract(deployer, 'TestToken', ['Dai', 'DAI', 18]);
  const usdc = await deployContract(deployer, 'TestToken', ['USD Coin', 'USDC', 6]);
  const usdt = await deployContract(deployer, 'TetherToken', ['Tether USD', 'USDT', 6]);
  return {
    dai: dai.contract,
    usdc: usdc.contract,
    usdt: usdt.contract,
    addresses: { dai: dai.address, usdc: usdc.address, usdt: usdt.address },
  };
}

export async function deployMulticall(deployer: Wallet): Promise<string> {
  return (await deployContract(deployer, 'Multicall3')).address;
}

/** Waits for a contract transaction and fails loudly if it reverted. */
export async function mined(tx: Promise<{ wait(): Promise<unknown> }>): Promise<void> {
  const receipt = (await (await tx).wait()) as { status?: number } | null;
  if (receipt?.status !== 1) throw new Error('transaction failed');
}

/**
 * Deploys raw runtime code (hand-assembled EVM) and returns its address. Keeps tests independent of
 * compiled artifacts for the tiny helpers they need (an always-reverting contract, a log emitter).
 */
export async function deployRuntime(deployer: Wallet, runtimeHex: string): Promise<string> {
  const runtime = runtimeHex.replace(/^0x/, '');
  const len = (runtime.length / 2).toString(16).padStart(2, '0');
  // PUSH1 len PUSH1 0x0c PUSH1 0 CODECOPY PUSH1 len PUSH1 0 RETURN, then the runtime (12-byte prefix).
  const init = `0x60${len}600c60003960${len}6000f3${runtime}`;
  const tx = await deployer.sendTransaction({ data: init });
  const receipt = await tx.wait();
  if (!receipt?.contractAddress) throw new Error('deployment failed');
  return receipt.contractAddress;
}

/** Runtime that reverts on every call: PUSH1 0 PUSH1 0 REVERT. */
export const REVERTER_RUNTIME = '60006000fd';
/** Runtime that emits LOG1 with the first calldata word as topic: calldataload(0), log1(0, 0, topic). */
export const EMITTER_RUNTIME = '60003560006000a100';
