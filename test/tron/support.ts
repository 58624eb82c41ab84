/**
 * Shared plumbing for Tron tests: this worker's anvil chain (Tron's chain id) behind a Tron facade
 * with a short solidified lag, funded EVM wallets for deploying tokens, fresh Tron accounts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcProvider, parseEther, Wallet } from 'ethers';
import { TronWeb } from 'tronweb';
import type { AnvilNode } from '../../src/chains/anvil.ts';
import { type ContractName, type DeployedContract, deployContract } from '../../src/chains/contracts.ts';
import { evmToTron } from '../../src/chains/tron/address.ts';
import type { TronClient } from '../../src/chains/tron/client.ts';
import { startTronFacade, TRON_CHAIN_ID, type TronFacade } from '../../src/devstack/tron-facade/index.ts';
import { workerAnvilNamed } from '../support/anvil.ts';

/** Small, so tests can move the solidified head past a transaction with a few mined blocks. */
export const TEST_SOLIDIFIED_LAG = 3;

export interface TronTestChain {
  anvil: AnvilNode;
  facade: TronFacade;
  provider: JsonRpcProvider;
}

let chain: Promise<TronTestChain> | undefined;

/** The worker's Tron chain, started on first use. */
export function tronChain(): Promise<TronTestChain> {
  chain ??= (async () => {
    const anvil = await workerAnvilNamed('tron', TRON_CHAIN_ID);
    const facade = await startTronFacade({ anvilRpcUrl: anvil.rpcUrl, solidifiedLag: TEST_SOLIDIFIED_LAG });
    const provider = new JsonRpcProvider(anvil.rpcUrl, TRON_CHAIN_ID, {
      staticNetwork: true,
      cacheTimeout: -1,
    });
    provider.pollingInterval = 50;
    return { anvil, facade, provider };
  })();
  return chain;
}

/** A new EVM wallet with 100 ETH on the chain, for deploying and minting. */
export async function fundedWallet(provider: JsonRpcProvider): Promise<Wallet> {
  const wallet = Wallet.createRandom().connect(provider);
  await provider.send('anvil_setBalance', [wallet.address, `0x${parseEther('100').toString(16)}`]);
  return new Wallet(wallet.privateKey, provider);
}

/** Deploys a fresh token (TetherToken is USDT-like: approve/transfer return nothing). */
export async function deployToken(
  provider: JsonRpcProvider,
  name: Extract<ContractName, 'TestToken' | 'TetherToken'> = 'TetherToken',
  decimals = 6,
): Promise<DeployedContract & { deployer: Wallet }> {
  const deployer = await fundedWallet(provider);
  const deployed = await deployContract(deployer, name, [`Test ${name}`, 'TT', decimals]);
  return { ...deployed, deployer };
}

/** A fresh key pair in its three spellings; `privateKey` without 0x, as tronweb takes it. */
export interface TronAccount {
  privateKey: string;
  evm: string;
  tron: string;
}

export function tronAccount(): TronAccount {
  const w = Wallet.createRandom();
  return { privateKey: w.privateKey.slice(2), evm: w.address, tron: evmToTron(w.address) };
}

export async function mine(provider: JsonRpcProvider, blocks: number): Promise<void> {
  await provider.send('anvil_mine', [`0x${blocks.toString(16)}`]);
}

/** POSTs to the facade and returns its JSON. */
export async function post<T = Record<string, unknown>>(
  baseUrl: string,
  path: string,
  body: object = {},
): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
  return (await res.json()) as T;
}

export const tronWebOn = (facade: TronFacade) => new TronWeb({ fullHost: facade.url });

/** A URL on which nothing listens. */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}

/** A server that accepts requests and never answers. */
export async function hangingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req) => req.resume());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A transaction's info from the full node (`/wallet/gettransactioninfobyid`), polled until the node has
 * it: as on Tron, the info of a broadcast transaction appears only once it is in a block.
 */
export async function transactionInfo<T = Record<string, unknown>>(
  baseUrl: string,
  txId: string,
): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const info = await post<T>(baseUrl, '/wallet/gettransactioninfobyid', { value: txId });
    if (Object.keys(info as object).length > 0 || Date.now() > deadline) return info;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A broadcast transaction's state once it is in a block: as on Tron, `broadcasttransaction` answers
 * before the transaction is mined, so a read straight after may still find it pending.
 */
export async function minedTronState(client: Pick<TronClient, 'getTxState'>, txId: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await client.getTxState(txId);
    if ((state.status !== 'pending' && state.status !== 'not_found') || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
