import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Interface, id, Wallet } from 'ethers';
import { beforeAll, expect, it } from 'vitest';
import { abi, contractAt, deployContract } from '../../src/chains/contracts.ts';
import { networkFileSchema } from '../../src/chains/networks.ts';
import { contractExists } from '../../src/chains/tron/deploy.ts';
import { createTronHttp } from '../../src/chains/tron/http.ts';
import { callConstant } from '../../src/chains/tron/trc20.ts';
import { TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';
import { forwarderAddress } from '../../src/modules/deposit/deposit.address.ts';
import { freshAddress, fundedWallet, testChain } from '../contracts/helpers.ts';
import { workerAnvil } from '../support/anvil.ts';
import { cliCommand } from '../support/cli.ts';
import { deployToken, mine, tronChain } from '../tron/support.ts';

/**
 * `npm run cli -- contracts:deploy` against a real node (this worker's anvil), as an operator runs it
 * for a new network: from a key file, into the network file, verified, usable by the service as is.
 */

const root = path.resolve(import.meta.dirname, '../..');
const launcher = cliCommand();
const cli = (args: string[]) =>
  promisify(execFile)(launcher.file, [...launcher.args, ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: '', NETWORKS_FILE: '' },
  });

let dir: string;
let rpcUrl: string;
let chainId: number;
let keyFile: string;
let usdc: string;
beforeAll(async () => {
  const { provider } = await testChain();
  ({ rpcUrl, chainId } = await workerAnvil());
  dir = mkdtempSync(path.join(os.tmpdir(), 'deploy-'));
  const deployer = await fundedWallet(provider);
  keyFile = path.join(dir, 'deployer.key');
  writeFileSync(keyFile, `${deployer.privateKey}\n`, { mode: 0o600 });
  usdc = (await deployContract(deployer, 'TestToken', ['USD Coin', 'USDC', 6])).address;
});

function networkFile(networks: unknown[]): string {
  const file = path.join(dir, `networks-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, `${JSON.stringify({ networks }, null, 2)}\n`);
  return file;
}

it('deploys the routers and the factory, verifies them and writes their addresses into the network file', async () => {
  const relayer = Wallet.createRandom();
  const feeWallet = freshAddress();
  const file = networkFile([
    {
      id: 'testnet',
      kind: 'evm',
      chainId,
      rpcUrls: [rpcUrl],
      tokens: [{ symbol: 'USDC', address: usdc, decimals: 6, depositFee: '0.25' }],
      relayerPrivateKey: relayer.privateKey,
    },
    { id: 'other', kind: 'evm', chainId: 1, rpcUrls: ['http://127.0.0.1:9'] },
  ]);
  const { stdout, stderr } = await cli([
    'contracts:deploy',
    '--network-file',
    file,
    '--network',
    'testnet',
    '--key-file',
    keyFile,
    '--fee-wallet',
    feeWallet,
  ]);
  expect(stderr).toMatch(
    /PaymentRouter 0x[0-9a-fA-F]{40}[\s\S]*ForwarderFactory 0x[0-9a-fA-F]{40}[\s\S]*verified/,
  );
  const printed = JSON.parse(stdout);
  const written = networkFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const testnet = written.networks.find((n) => n.id === 'testnet')!;
  expect(testnet.contracts).toMatchObject({
    paymentRouter: printed.paymentRouter,
    payoutRouter: printed.payoutRouter,
    batchPayoutRouter: printed.batchPayoutRouter,
    forwarderFactory: printed.forwarderFactory,
    forwarderImplementation: printed.forwarderImplementation,
  });
  expect(testnet.feeWallet).toBe(feeWallet);
  // The other network of the file is left as it was.
  expect(written.networks.find((n) => n.id === 'other')!.contracts).toEqual({});

  const { provider } = await testChain();
  const factory = contractAt('ForwarderFactory', printed.forwarderFactory, provider);
  expect(await factory.getFunction('fee')(usdc)).toBe(250_000n);
  expect(await factory.getFunction('isSweeper')(relayer.address)).toBe(true);
  expect(await factory.getFunction('create2Prefix')()).toBe('0xff');
  // The service computes the same deposit addresses as the deployed factory.
  const wallet = freshAddress();
  const site = {
    prefix: '0xff' as const,
    factory: printed.forwarderFactory,
    implementation: printed.forwarderImplementation,
  };
  expect(await factory.getFunction('predict')(wallet, id('player'))).toBe(
    forwarderAddress(site, wallet, id('player')),
  );
}, 120_000);

it('deploys to a Tron node through its HTTP API (the facade) and writes the addresses', async () => {
  const tron = await tronChain();
  const miner = setInterval(() => void mine(tron.provider, 1).catch(() => {}), 100);
  try {
    const { address: usdt } = await deployToken(tron.provider);
    const relayer = Wallet.createRandom();
    const feeWallet = freshAddress();
    const file = networkFile([
      {
        id: 'tron',
        kind: 'tron',
        chainId: TRON_CHAIN_ID,
        rpcUrls: [tron.facade.url],
        create2Prefix: '0xff',
        tokens: [{ symbol: 'USDT', address: usdt, decimals: 6, depositFee: '1' }],
        relayerPrivateKey: relayer.privateKey,
      },
    ]);
    const { stdout, stderr } = await cli([
      'contracts:deploy',
      '--network-file',
      file,
      '--network',
      'tron',
      '--key-file',
      keyFile,
      '--fee-wallet',
      feeWallet,
    ]);
    // Tron people read base58 addresses: progress shows both spellings.
    expect(stderr).toMatch(/PaymentRouter T[1-9A-HJ-NP-Za-km-z]{33} \(0x[0-9a-fA-F]{40}\)[\s\S]*verified/);
    const printed = JSON.parse(stdout);
    const written = networkFileSchema.parse(JSON.parse(readFileSync(file, 'utf8'))).networks[0]!;
    expect(written.contracts.forwarderFactory).toBe(printed.forwarderFactory);
    expect(written.feeWallet).toBe(feeWallet);
    const http = createTronHttp({ network: written });
    const factory = new Interface(abi('ForwarderFactory'));
    const read = async (fn: string, ...args: unknown[]) =>
      factory.decodeFunctionResult(
        fn,
        await callConstant(http, {
          contract: printed.forwarderFactory,
          data: factory.encodeFunctionData(fn, args),
        }),
      )[0];
    expect(await read('fee', usdt)).toBe(1_000_000n);
    expect(await read('isSweeper', relayer.address)).toBe(true);
    expect(await read('feeWallet')).toBe(feeWallet);
    for (const address of Object.values(printed).filter((v) => typeof v === 'string' && v.startsWith('0x')))
      expect(await contractExists(http, address as string)).toBe(true);
  } finally {
    clearInterval(miner);
  }
}, 120_000);

it('refuses a node of another chain, an unknown network, a Tron node without the tokens and a malformed key, deploying nothing', async () => {
  const tron = await tronChain();
  const base = { kind: 'evm', rpcUrls: [rpcUrl], tokens: [] };
  const file = networkFile([
    { id: 'wrong', chainId: chainId + 1, ...base },
    {
      id: 'nile',
      kind: 'tron',
      chainId: 3448148188,
      rpcUrls: [tron.facade.url],
      tokens: [{ symbol: 'USDT', address: freshAddress(), decimals: 6 }],
    },
  ]);
  const badKey = path.join(dir, 'bad.key');
  writeFileSync(badKey, 'not a key\n');
  const run = (network: string, key = keyFile) =>
    cli([
      'contracts:deploy',
      '--network-file',
      file,
      '--network',
      network,
      '--key-file',
      key,
      '--fee-wallet',
      freshAddress(),
    ]).then(
      () => '',
      (error: { stderr: string }) => error.stderr,
    );
  expect(await run('wrong')).toMatch(new RegExp(`serves chain ${chainId}, not wrong's ${chainId + 1}`));
  expect(await run('nope')).toMatch(/has no network "nope"/);
  expect(await run('nile')).toMatch(
    /has no contract at nile's USDT address 0x[0-9a-fA-F]{40}: is it a node of nile\?/,
  );
  const ok = networkFile([{ id: 'fine', chainId, ...base }]);
  expect(
    await cli([
      'contracts:deploy',
      '--network-file',
      ok,
      '--network',
      'fine',
      '--key-file',
      badKey,
      '--fee-wallet',
      freshAddress(),
    ]).then(
      () => '',
      (error: { stderr: string }) => error.stderr,
    ),
  ).toMatch(/expected a private key of 64 hex characters/);
  expect(JSON.parse(readFileSync(ok, 'utf8')).networks[0].contracts).toBeUndefined();
}, 120_000);

it('takes a key file without the 0x prefix', async () => {
  const bare = path.join(dir, 'bare.key');
  writeFileSync(bare, `${readFileSync(keyFile, 'utf8').trim().slice(2)}\n`, { mode: 0o600 });
  const file = networkFile([{ id: 'bare', kind: 'evm', chainId, rpcUrls: [rpcUrl], tokens: [] }]);
  const { stdout } = await cli([
    'contracts:deploy',
    '--network-file',
    file,
    '--network',
    'bare',
    '--key-file',
    bare,
    '--fee-wallet',
    freshAddress(),
  ]);
  const written = JSON.parse(readFileSync(file, 'utf8')).networks[0].contracts;
  expect(written.forwarderFactory).toBe(JSON.parse(stdout).forwarderFactory);
}, 120_000);
