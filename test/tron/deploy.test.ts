/**
 * Deploying through a Tron node's HTTP API (contracts:deploy on a `tron` network): the
 * CreateSmartContract codec against tronweb's, the facade's `deploycontract` against tronweb's own
 * client, and the gateway deployed by the service's Tron target, refusing a node that alters what it
 * was asked to build.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Interface, SigningKey, Wallet } from 'ethers';
import { utils } from 'tronweb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { abi, artifact } from '../../src/chains/contracts.ts';
import { deployGateway } from '../../src/chains/deploy.ts';
import { evmToTron, toTronHex } from '../../src/chains/tron/address.ts';
import { buildCreate, tronDeployTarget } from '../../src/chains/tron/deploy.ts';
import { hexToBytes } from '../../src/chains/tron/hex.ts';
import { createTronHttp } from '../../src/chains/tron/http.ts';
import { createContract, decodeCreate, soleCreate } from '../../src/chains/tron/tx-create.ts';
import { transactionJson } from '../../src/chains/tron/tx-json.ts';
import { decodeRaw, encodeRaw, type RawTransaction } from '../../src/chains/tron/tx-raw.ts';
import { freshAddress } from '../contracts/helpers.ts';
import {
  deployToken,
  mine,
  post,
  type TronTestChain,
  transactionInfo,
  tronChain,
  tronWebOn,
} from './support.ts';

const OWNER = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';

function createRaw(bytecode: string, overrides: Partial<Parameters<typeof createContract>[0]> = {}) {
  return {
    refBlockBytes: '1a2b',
    refBlockHash: '9abdc27eabc9fc16',
    expiration: 1_795_327_877_000,
    timestamp: 1_795_327_818_014,
    feeLimit: 1_000_000_000,
    data: '',
    contracts: [
      createContract({
        ownerAddress: OWNER,
        originAddress: OWNER,
        abi: '',
        bytecode,
        name: 'PaymentRouter',
        callValue: 0n,
        consumeUserResourcePercent: 100n,
        originEnergyLimit: 10_000_000n,
        callTokenValue: 0n,
        tokenId: 0n,
        otherFields: [],
        ...overrides,
      }),
    ],
  } satisfies RawTransaction;
}

describe('CreateSmartContract codec', () => {
  it('encodes raw_data byte for byte as tronweb does, the empty ABI included', () => {
    const raw = createRaw(artifact('PaymentRouter').bytecode.slice(2));
    const json = transactionJson(raw, false);
    const theirs = utils.transaction.txPbToRawDataHex(utils.transaction.txJsonToPb(json)).toLowerCase();
    expect(json.raw_data_hex).toBe(theirs);
    // java-tron always sets the ABI message: an empty one is written as field 3, length 0.
    expect(json.raw_data_hex).toContain('1a00');
    const back = soleCreate(decodeRaw(hexToBytes(json.raw_data_hex)))!;
    expect(back).toMatchObject({
      ownerAddress: OWNER,
      name: 'PaymentRouter',
      consumeUserResourcePercent: 100n,
    });
    expect(back.otherFields).toEqual([]);
  });

  it('names fields it does not carry, so a deployment carrying them is not signed unseen', () => {
    const parameter = createRaw('6080').contracts[0]!.parameter;
    // SmartContract.code_hash (9) smuggled into new_contract.
    const smart = parameter.subarray(parameter.indexOf(0x12) + 2);
    const tampered = Uint8Array.from([
      ...parameter.subarray(0, parameter.indexOf(0x12)),
      0x12,
      smart.length + 4,
      ...smart,
      0x4a,
      2,
      0xab,
      0xcd,
    ]);
    expect(decodeCreate(tampered).otherFields).toEqual([9]);
  });
});

describe('deploying through the facade', () => {
  let chain: TronTestChain;
  let miner: ReturnType<typeof setInterval> | undefined;
  beforeAll(async () => {
    chain = await tronChain();
  });
  afterEach(() => clearInterval(miner));
  /** Blocks keep coming, as on Tron, so the solidified head moves past the deployment. */
  const keepMining = () => {
    miner = setInterval(() => void mine(chain.provider, 1).catch(() => {}), 100);
  };

  it('runs a deployment tronweb built and signed as the owner, and builds the same one itself', async () => {
    const tw = tronWebOn(chain.facade);
    const account = Wallet.createRandom();
    tw.setPrivateKey(account.privateKey.slice(2));
    const tx = await tw.transactionBuilder.createSmartContract(
      {
        abi: [],
        bytecode: artifact('PaymentRouter').bytecode,
        feeLimit: 1_000_000_000,
        callValue: 0,
        userFeePercentage: 100,
        originEnergyLimit: 10_000_000,
        name: 'PaymentRouter',
      },
      evmToTron(account.address),
    );
    const create = soleCreate(decodeRaw(hexToBytes(tx.raw_data_hex)))!;
    expect(create.ownerAddress).toBe(toTronHex(account.address));
    expect(create.bytecode).toBe(artifact('PaymentRouter').bytecode.slice(2));
    // The facade's own `deploycontract` builds the same contract for the same request.
    const ours = await post<{ raw_data_hex: string }>(chain.facade.url, '/wallet/deploycontract', {
      owner_address: evmToTron(account.address),
      abi: '[]',
      bytecode: artifact('PaymentRouter').bytecode.slice(2),
      name: 'PaymentRouter',
      fee_limit: 1_000_000_000,
      consume_user_resource_percent: 100,
      origin_energy_limit: 10_000_000,
      visible: true,
    });
    expect(decodeRaw(hexToBytes(ours.raw_data_hex)).contracts).toEqual(
      decodeRaw(hexToBytes(tx.raw_data_hex)).contracts,
    );
    const signed = await tw.trx.sign(tx);
    const sent = await tw.trx.sendRawTransaction(signed);
    expect(sent, JSON.stringify(sent)).toMatchObject({ result: true });
    const info = await transactionInfo<{ contract_address?: string; receipt?: { result?: string } }>(
      chain.facade.url,
      tx.txID,
    );
    expect(info.receipt?.result).toBe('SUCCESS');
    const got = await post<{ bytecode?: string }>(chain.facade.url, '/wallet/getcontract', {
      value: info.contract_address,
    });
    expect(`0x${got.bytecode}`).toBe(artifact('PaymentRouter').deployedBytecode);
    const byId = await post<{ raw_data?: { contract?: { type?: string }[] } }>(
      chain.facade.url,
      '/wallet/gettransactionbyid',
      { value: tx.txID },
    );
    expect(byId.raw_data?.contract?.[0]?.type).toBe('CreateSmartContract');
    // A signature by another key is refused before anything runs.
    const other = await tw.transactionBuilder.createSmartContract(
      { abi: [], bytecode: artifact('PaymentRouter').bytecode, feeLimit: 1_000_000_000, name: 'X' },
      evmToTron(account.address),
    );
    const forged = {
      ...other,
      signature: [
        new SigningKey(Wallet.createRandom().privateKey).sign(`0x${other.txID}`).serialized.slice(2),
      ],
    };
    expect((await tw.trx.sendRawTransaction(forged)).code).toBe('SIGERROR');
    expect(await post(chain.facade.url, '/wallet/getcontract', { value: OWNER })).toEqual({});
  }, 60_000);

  it('deploys the gateway: routers, factory with its settings, verified by reads, final on the solidified head', async () => {
    keepMining();
    const { address: usdt } = await deployToken(chain.provider);
    const key = Wallet.createRandom().privateKey;
    const relayer = freshAddress();
    const feeWallet = freshAddress();
    const steps: string[] = [];
    const http = createTronHttp({ network: { id: 'tron', rpcUrls: [chain.facade.url] } });
    const target = tronDeployTarget(http, key, { pollMs: 50 });
    const deployment = await deployGateway(target, {
      progress: (s) => steps.push(s),
      feeWallet,
      create2Prefix: '0xff',
      fees: [{ token: usdt, raw: 1_000_000n }],
      sweepers: [relayer],
    });
    expect(steps.filter((s) => /^(PaymentRouter|ForwarderFactory) T/.test(s))).toHaveLength(2);
    expect(steps.at(-1)).toBe('verified');
    const factory = new Interface(abi('ForwarderFactory'));
    const read = async (fn: string, ...args: unknown[]) =>
      factory.decodeFunctionResult(
        fn,
        await target.read(deployment.forwarderFactory, factory.encodeFunctionData(fn, args)),
      )[0];
    expect(await read('fee', usdt)).toBe(1_000_000n);
    expect(await read('isSweeper', relayer)).toBe(true);
    expect(String(await read('owner')).toLowerCase()).toBe(target.deployer.toLowerCase());
    // Settled: the solidified view sees the factory.
    const solid = await post<{ constant_result?: string[] }>(
      chain.facade.url,
      '/walletsolidity/triggerconstantcontract',
      {
        owner_address: OWNER,
        contract_address: toTronHex(deployment.forwarderFactory),
        data: factory.encodeFunctionData('feeWallet').slice(2),
      },
    );
    expect(solid.constant_result?.[0]).toMatch(new RegExp(`${feeWallet.slice(2).toLowerCase()}$`));
  }, 120_000);

  it('refuses to sign a deployment the node altered', async () => {
    // A node that swaps the code it was asked to deploy for other code.
    const evil = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
      if (req.url === '/wallet/deploycontract') body.bytecode = artifact('TestToken').bytecode.slice(2);
      const answer = await post(chain.facade.url, req.url!, body);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const http = createTronHttp({
        network: { id: 'tron', rpcUrls: [`http://127.0.0.1:${(evil.address() as AddressInfo).port}`] },
        options: { retries: 0 },
      });
      await expect(
        buildCreate(http, {
          owner: freshAddress(),
          bytecode: artifact('PaymentRouter').bytecode,
          name: 'PaymentRouter',
          feeLimit: 1_000_000_000,
        }),
      ).rejects.toThrow(/transaction differs from the request/);
    } finally {
      evil.closeAllConnections();
      await new Promise((r) => evil.close(r));
    }
    // The same request through the honest node is built.
    const http = createTronHttp({ network: { id: 'tron', rpcUrls: [chain.facade.url] } });
    const built = await buildCreate(http, {
      owner: freshAddress(),
      bytecode: artifact('PaymentRouter').bytecode,
      name: 'PaymentRouter',
      feeLimit: 1_000_000_000,
    });
    expect(encodeRaw(decodeRaw(hexToBytes(built.raw_transaction)))).toEqual(
      hexToBytes(built.raw_transaction),
    );
  }, 60_000);
});
