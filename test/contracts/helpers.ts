/**
 * Shared plumbing for contract tests: a provider on the worker's anvil, fresh funded wallets (so files
 * sharing the node never contend for nonces), chain-time helpers and revert decoding.
 */
import {
  type Contract,
  type ContractTransactionResponse,
  Interface,
  JsonRpcProvider,
  parseEther,
  type TransactionReceipt,
  Wallet,
} from 'ethers';
import { abi, type ContractName } from '../../src/chains/contracts.ts';
import { workerAnvil } from '../support/anvil.ts';

/** Provider on this worker's anvil plus its chain id. */
export async function testChain(): Promise<{ provider: JsonRpcProvider; chainId: number }> {
  const node = await workerAnvil();
  const provider = new JsonRpcProvider(node.rpcUrl, node.chainId, { staticNetwork: true, cacheTimeout: -1 });
  provider.pollingInterval = 50;
  return { provider, chainId: node.chainId };
}

/** A new random wallet holding 100 ETH on the test chain. */
export async function fundedWallet(provider: JsonRpcProvider): Promise<Wallet> {
  // A plain Wallet (not the HD wallet createRandom returns) so tests can type signers as Wallet.
  const wallet = new Wallet(Wallet.createRandom().privateKey, provider);
  await provider.send('anvil_setBalance', [wallet.address, `0x${parseEther('100').toString(16)}`]);
  return wallet;
}

/** A fresh address with no history (recipient, settlement wallet...). */
export function freshAddress(): string {
  return Wallet.createRandom().address;
}

/** Timestamp of the latest block; the chain is shared, so never assume wall-clock time. */
export async function chainNow(provider: JsonRpcProvider): Promise<number> {
  const block = await provider.getBlock('latest');
  return block!.timestamp;
}

/** Moves chain time forward by `seconds` and mines a block. */
export async function advanceTime(provider: JsonRpcProvider, seconds: number): Promise<void> {
  await provider.send('evm_increaseTime', [seconds]);
  await provider.send('evm_mine', []);
}

/** Sends and waits; throws if the transaction reverted. */
export async function mined(tx: Promise<ContractTransactionResponse>): Promise<TransactionReceipt> {
  const receipt = await (await tx).wait();
  if (receipt?.status !== 1) throw new Error('transaction failed');
  return receipt;
}

/**
 * Sends a transaction with a fixed gas limit (skipping estimation, which would refuse a reverting call)
 * and returns its receipt, which must show a mined revert.
 */
export async function minedRevert(
  send: (overrides: { gasLimit: bigint }) => Promise<ContractTransactionResponse>,
  provider: JsonRpcProvider,
): Promise<TransactionReceipt> {
  const tx = await send({ gasLimit: 1_000_000n });
  const receipt = await provider.waitForTransaction(tx.hash);
  if (!receipt) throw new Error('no receipt');
  if (receipt.status !== 0) throw new Error('expected the transaction to revert on-chain');
  return receipt;
}

/** Decodes the custom error name of a failed call against the ABIs of `names`, or `undefined`. */
export function revertName(error: unknown, names: ContractName[]): string | undefined {
  const data = findRevertData(error);
  if (!data) return undefined;
  for (const name of names) {
    const parsed = new Interface(abi(name)).parseError(data);
    if (parsed) return parsed.name;
  }
  return undefined;
}

function findRevertData(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e && typeof e === 'object'; depth++) {
    const data = (e as { data?: unknown }).data;
    if (typeof data === 'string' && data.startsWith('0x') && data.length >= 10) return data;
    e = (e as { error?: unknown; info?: unknown }).error ?? (e as { info?: { error?: unknown } }).info?.error;
  }
  return undefined;
}

/** Asserts that `call` rejects with custom error `errorName` (decoded against `names`). */
export async function expectCustomError(
  call: Promise<unknown>,
  errorName: string,
  names: ContractName[],
): Promise<void> {
  let caught: unknown;
  try {
    await call;
  } catch (err) {
    caught = err;
  }
  if (caught === undefined) throw new Error(`expected revert ${errorName}, but the call succeeded`);
  const name = revertName(caught, names);
  if (name !== errorName) {
    throw new Error(
      `expected revert ${errorName}, got ${name ?? 'undecodable'}: ${String(caught).slice(0, 300)}`,
    );
  }
}

/** Typed `balanceOf` read. */
export async function balanceOf(token: Contract, who: string): Promise<bigint> {
  return (await token.getFunction('balanceOf')(who)) as bigint;
}
