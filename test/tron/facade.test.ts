/**
 * The Tron facade behaves like a Tron node where the service depends on it: real protobuf raw_data,
 * Tron signatures checked before anything runs, TaPoS and expiration, a solidified view that lags.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Contract, Interface } from 'ethers';
import type { TronWeb } from 'tronweb';
import { utils } from 'tronweb';
import { beforeAll, describe, expect, it } from 'vitest';
import { toTronHex } from '../../src/chains/tron/address.ts';
import { hexToBytes, sha256Hex } from '../../src/chains/tron/hex.ts';
import { decodeRaw } from '../../src/chains/tron/tx-raw.ts';
import { startTronFacade } from '../../src/devstack/tron-facade/index.ts';
import {
  deployToken,
  mine,
  post,
  TEST_SOLIDIFIED_LAG,
  type TronAccount,
  type TronTestChain,
  transactionInfo,
  tronAccount,
  tronChain,
  tronWebOn,
} from './support.ts';

// biome-ignore lint/suspicious/noExplicitAny: tronweb's transaction JSON type is loose by design
type TxJson = any;

const ERC20 = new Interface(['function allowance(address,address) view returns (uint256)']);
const FEE_LIMIT = 100_000_000;
const utf8 = (hex: string) => Buffer.from(hex, 'hex').toString('utf8');

let chain: TronTestChain;
let tw: TronWeb;
let token: { address: string; contract: Contract };
let tokenTron: string;

beforeAll(async () => {
  chain = await tronChain();
  tw = tronWebOn(chain.facade);
  const deployed = await deployToken(chain.provider);
  token = deployed;
  tokenTron = utils.address.fromHex(toTronHex(deployed.address));
});

/** A facade-built, unsigned approve(spender, amount) from `owner`, via tronweb's builder. */
async function buildApprove(owner: TronAccount, spender: TronAccount, amount: number, feeLimit = FEE_LIMIT) {
  const built = await tw.transactionBuilder.triggerSmartContract(
    tokenTron,
    'approve(address,uint256)',
    { feeLimit },
    [
      { type: 'address', value: spender.tron },
      { type: 'uint256', value: amount },
    ],
    owner.tron,
  );
  return built.transaction as TxJson;
}

/** Changes raw_data and re-derives raw_data_hex and txID with tronweb's own encoder. */
function rewrite(tx: TxJson, change: (raw: TxJson) => void): TxJson {
  const copy = structuredClone(tx);
  change(copy.raw_data);
  const pb = utils.transaction.txJsonToPb(copy);
  copy.raw_data_hex = utils.transaction.txPbToRawDataHex(pb).toLowerCase();
  copy.txID = utils.transaction.txPbToTxID(pb).replace(/^0x/, '');
  return copy;
}

const allowance = async (owner: TronAccount, spender: TronAccount) =>
  BigInt(
    await chain.provider.call({
      to: token.address,
      data: ERC20.encodeFunctionData('allowance', [owner.evm, spender.evm]),
    }),
  );

const evmNonce = (a: TronAccount) => chain.provider.getTransactionCount(a.evm);

describe('Tron facade: building', () => {
  it('builds protobuf raw_data referencing the head block, txID = sha256(raw_data)', async () => {
    const owner = tronAccount();
    const tx = await buildApprove(owner, tronAccount(), 5);
    expect(tx.txID).toBe(sha256Hex(hexToBytes(tx.raw_data_hex)));
    const raw = decodeRaw(hexToBytes(tx.raw_data_hex));
    expect(raw.feeLimit).toBe(FEE_LIMIT);
    expect(raw.refBlockBytes).toBe(tx.raw_data.ref_block_bytes);
    const head = await post<TxJson>(chain.facade.url, '/wallet/getnowblock');
    // The reference is the head: low two bytes of its number, bytes 8..16 of its id.
    expect(tx.raw_data.ref_block_bytes).toBe(head.blockID.slice(12, 16));
    expect(tx.raw_data.ref_block_hash).toBe(head.blockID.slice(16, 32));
    expect(tx.raw_data.expiration).toBe(head.block_header.raw_data.timestamp + 60_000);
    expect(utils.transaction.txCheck(tx)).toBe(true);
  });

  it('refuses to build a call to an address without code, in the node’s shape', async () => {
    const res = await post<TxJson>(chain.facade.url, '/wallet/triggersmartcontract', {
      owner_address: toTronHex(tronAccount().evm),
      contract_address: toTronHex(tronAccount().evm),
      function_selector: 'decimals()',
      fee_limit: FEE_LIMIT,
    });
    expect(res.result.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(utf8(res.result.message)).toMatch(/No contract/);
  });

  it('answers malformed requests with {Error} and unknown paths with 404', async () => {
    const bad = await post<TxJson>(chain.facade.url, '/wallet/triggersmartcontract', {
      owner_address: 'nope',
    });
    expect(bad.Error).toBeTypeOf('string');
    const res = await fetch(`${chain.facade.url}/wallet/createwitness`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});

describe('Tron facade: broadcasting', () => {
  it('executes a tronweb-signed transaction on anvil as its owner', async () => {
    const owner = tronAccount();
    const spender = tronAccount();
    const signed = await tw.trx.sign(await buildApprove(owner, spender, 777), owner.privateKey);
    const sent = await tw.trx.sendRawTransaction(signed);
    expect(sent).toMatchObject({ result: true, txid: signed.txID });
    expect(await allowance(owner, spender)).toBe(777n);

    const info = await transactionInfo<TxJson>(chain.facade.url, signed.txID);
    expect(info.id).toBe(signed.txID);
    expect(info.receipt.result).toBe('SUCCESS');
    expect(info.contract_address).toBe(toTronHex(token.address));
    expect(info.log).toHaveLength(1);
    // Tron's log shape: 20-byte address without 41, hex without 0x.
    expect(info.log[0].address).toBe(token.address.slice(2).toLowerCase());
    expect(info.log[0].topics[1]).toBe(owner.evm.slice(2).toLowerCase().padStart(64, '0'));
    expect(BigInt(`0x${info.log[0].data}`)).toBe(777n);

    const byId = await post<TxJson>(chain.facade.url, '/wallet/gettransactionbyid', { value: signed.txID });
    expect(byId.ret).toEqual([{ contractRet: 'SUCCESS' }]);
    expect(byId.raw_data_hex).toBe(signed.raw_data_hex);
    expect(byId.signature).toEqual([signed.signature[0].toLowerCase()]);

    const infos = await post<TxJson[]>(chain.facade.url, '/wallet/gettransactioninfobyblocknum', {
      num: info.blockNumber,
    });
    expect(infos.map((i: TxJson) => i.id)).toContain(signed.txID);

    const again = await tw.trx.sendRawTransaction(signed);
    expect(again).toMatchObject({ code: 'DUP_TRANSACTION_ERROR' });
  });

  it('accepts broadcasthex of a transaction serialized by tronweb', async () => {
    const owner = tronAccount();
    const spender = tronAccount();
    const signed = await tw.trx.sign(await buildApprove(owner, spender, 42), owner.privateKey);
    const pb = utils.transaction.txJsonToPb(signed);
    pb.addSignature(hexToBytes(signed.signature[0]));
    const hex = utils.bytes.byteArray2hexStr(pb.serializeBinary());
    const sent: TxJson = await tw.trx.sendHexTransaction(hex);
    expect(sent).toMatchObject({ result: true, txid: signed.txID });
    expect(sent.transaction.txID).toBe(signed.txID);
    expect(await allowance(owner, spender)).toBe(42n);
  });

  it('refuses bad, foreign, missing or extra signatures and never executes them', async () => {
    const owner = tronAccount();
    const spender = tronAccount();
    const tx = await buildApprove(owner, spender, 1000);
    const mallory = tronAccount();
    const foreign = utils.crypto.signTransaction(mallory.privateKey, structuredClone(tx));
    const garbage = { ...tx, signature: [`${'11'.repeat(64)}1b`] };
    const short = { ...tx, signature: ['abcd'] };
    const good = await tw.trx.sign(tx, owner.privateKey);
    const doubled = { ...good, signature: [good.signature[0], good.signature[0]] };
    for (const bad of [foreign, garbage, short, doubled]) {
      const res = await post<TxJson>(chain.facade.url, '/wallet/broadcasttransaction', bad);
      expect(res.code).toBe('SIGERROR');
    }
    const unsigned = await post<TxJson>(chain.facade.url, '/wallet/broadcasttransaction', tx);
    expect(unsigned.code).toBe('SIGERROR');
    expect(
      utf8((await post<TxJson>(chain.facade.url, '/wallet/broadcasttransaction', foreign)).message),
    ).toContain(mallory.tron);
    expect(await allowance(owner, spender)).toBe(0n);
    expect(await evmNonce(owner)).toBe(0);
  });

  it('refuses a signature over other content (signed, then raw_data altered)', async () => {
    const owner = tronAccount();
    const spender = tronAccount();
    const signed = await tw.trx.sign(await buildApprove(owner, spender, 5), owner.privateKey);
    const tampered = rewrite(signed, (raw) => {
      raw.fee_limit = FEE_LIMIT * 2;
    });
    tampered.signature = signed.signature;
    const res = await post<TxJson>(chain.facade.url, '/wallet/broadcasttransaction', tampered);
    expect(res.code).toBe('SIGERROR');
    expect(await evmNonce(owner)).toBe(0);
  });

  it('refuses an expired transaction and never executes it', async () => {
    const owner = tronAccount();
    const spender = tronAccount();
    const head = await post<TxJson>(chain.facade.url, '/wallet/getnowblock');
    const expired = rewrite(await buildApprove(owner, spender, 9), (raw) => {
      raw.expiration = head.block_header.raw_data.timestamp - 1000;
    });
    const signed = await tw.trx.sign(expired, owner.privateKey);
    const res = await tw.trx.sendRawTransaction(signed);
    expect(res).toMatchObject({ code: 'TRANSACTION_EXPIRATION_ERROR', txid: signed.txID });
    expect(await allowance(owner, spender)).toBe(0n);
    expect(await evmNonce(owner)).toBe(0);

    const tooLong = rewrite(await buildApprove(owner, spender, 9), (raw) => {
      raw.expiration = head.block_header.raw_data.timestamp + 25 * 3600_000;
    });
    const res2 = await tw.trx.sendRawTransaction(await tw.trx.sign(tooLong, owner.privateKey));
    expect(res2).toMatchObject({ code: 'TRANSACTION_EXPIRATION_ERROR' });
  });

  it('refuses a transaction whose TaPoS reference is not on this chain', async () => {
    const owner = tronAccount();
    const forged = rewrite(await buildApprove(owner, tronAccount(), 9), (raw) => {
      raw.ref_block_hash = '0123456789abcdef';
    });
    const res = await tw.trx.sendRawTransaction(await tw.trx.sign(forged, owner.privateKey));
    expect(res).toMatchObject({ code: 'TAPOS_ERROR' });
    expect(await evmNonce(owner)).toBe(0);
  });

  it('reports a revert and running out of energy as failed receipts', async () => {
    const owner = tronAccount();
    // transfer() of tokens the owner does not have: the USDT-like token reverts.
    const built = await tw.transactionBuilder.triggerSmartContract(
      tokenTron,
      'transfer(address,uint256)',
      { feeLimit: FEE_LIMIT },
      [
        { type: 'address', value: tronAccount().tron },
        { type: 'uint256', value: 1 },
      ],
      owner.tron,
    );
    const reverted = await tw.trx.sign(built.transaction, owner.privateKey);
    expect(await tw.trx.sendRawTransaction(reverted)).toMatchObject({ result: true });
    const info = await transactionInfo<TxJson>(chain.facade.url, reverted.txID);
    expect(info).toMatchObject({ result: 'FAILED', receipt: { result: 'REVERT' } });
    expect(info.log).toEqual([]);

    // A fee limit that buys less energy than approve needs.
    const starved = await tw.trx.sign(
      await buildApprove(owner, tronAccount(), 1, 210 * 30_000),
      owner.privateKey,
    );
    expect(await tw.trx.sendRawTransaction(starved)).toMatchObject({ result: true });
    const info2 = await transactionInfo<TxJson>(chain.facade.url, starved.txID);
    expect(info2.receipt.result).toBe('OUT_OF_ENERGY');
    const byId = await post<TxJson>(chain.facade.url, '/wallet/gettransactionbyid', { value: starved.txID });
    expect(byId.ret).toEqual([{ contractRet: 'OUT_OF_ENERGY' }]);
  });
});

describe('Tron facade: blocks and the solidified view', () => {
  it('serves Tron-style blocks: id starts with the number, parent links hold', async () => {
    await mine(chain.provider, TEST_SOLIDIFIED_LAG + 1);
    const head = await post<TxJson>(chain.facade.url, '/wallet/getnowblock');
    const n = head.block_header.raw_data.number;
    expect(head.blockID.slice(0, 16)).toBe(n.toString(16).padStart(16, '0'));
    const parent = await post<TxJson>(chain.facade.url, '/wallet/getblockbynum', { num: n - 1 });
    expect(head.block_header.raw_data.parentHash).toBe(parent.blockID);
    expect(head.block_header.raw_data.witness_address).toMatch(/^41[0-9a-f]{40}$/);
    const evmBlock = await chain.provider.getBlock(n);
    expect(head.block_header.raw_data.timestamp).toBe(evmBlock!.timestamp * 1000);
    expect(await post(chain.facade.url, '/wallet/getblockbynum', { num: n + 1000 })).toEqual({});
  });

  it('solidified head lags the head; unsolidified transactions are invisible to /walletsolidity', async () => {
    const owner = tronAccount();
    const spender = tronAccount();
    const signed = await tw.trx.sign(await buildApprove(owner, spender, 31), owner.privateKey);
    await tw.trx.sendRawTransaction(signed);
    const head = (await post<TxJson>(chain.facade.url, '/wallet/getnowblock')).block_header.raw_data.number;
    const solid = (await post<TxJson>(chain.facade.url, '/walletsolidity/getnowblock')).block_header.raw_data
      .number;
    expect(head - solid).toBe(TEST_SOLIDIFIED_LAG);

    const info = await transactionInfo<TxJson>(chain.facade.url, signed.txID);
    expect(info.blockNumber).toBeGreaterThan(solid);
    const q = { value: signed.txID };
    expect(await post(chain.facade.url, '/walletsolidity/gettransactioninfobyid', q)).toEqual({});
    expect(await post(chain.facade.url, '/walletsolidity/gettransactionbyid', q)).toEqual({});
    expect(await post(chain.facade.url, '/walletsolidity/getblockbynum', { num: info.blockNumber })).toEqual(
      {},
    );
    expect(
      await post(chain.facade.url, '/walletsolidity/gettransactioninfobyblocknum', { num: info.blockNumber }),
    ).toEqual([]);
    // The solidity node's state is the solidified block's: the allowance is not there yet.
    const readAllowance = async (path: string) => {
      const res = await post<TxJson>(chain.facade.url, path, {
        owner_address: toTronHex(owner.evm),
        contract_address: toTronHex(token.address),
        data: ERC20.encodeFunctionData('allowance', [owner.evm, spender.evm]).slice(2),
      });
      return BigInt(`0x${res.constant_result[0]}`);
    };
    expect(await readAllowance('/wallet/triggerconstantcontract')).toBe(31n);
    expect(await readAllowance('/walletsolidity/triggerconstantcontract')).toBe(0n);

    await mine(chain.provider, info.blockNumber + TEST_SOLIDIFIED_LAG - head);
    expect(await post(chain.facade.url, '/walletsolidity/gettransactioninfobyid', q)).toMatchObject({
      id: signed.txID,
      blockNumber: info.blockNumber,
    });
    expect(await post(chain.facade.url, '/walletsolidity/gettransactionbyid', q)).toMatchObject({
      txID: signed.txID,
    });
    expect(await readAllowance('/walletsolidity/triggerconstantcontract')).toBe(31n);
  });
});

describe('Tron facade: what tronweb reads', () => {
  it('serves tronweb’s block, transaction, account and chain-parameter calls', async () => {
    const owner = tronAccount();
    const signed = await tw.trx.sign(await buildApprove(owner, tronAccount(), 3), owner.privateKey);
    await tw.trx.sendRawTransaction(signed);
    // One TRX is 10^6 sun; the chain's native coin stands in for it at 10^12 wei per sun.
    await chain.provider.send('anvil_setBalance', [owner.evm, '0xde0b6b3a7640000']);

    const head = await tw.trx.getCurrentBlock();
    const solid = await tw.trx.getConfirmedCurrentBlock();
    expect(head.block_header.raw_data.number - solid.block_header.raw_data.number).toBe(TEST_SOLIDIFIED_LAG);
    expect((await tw.trx.getBlock(solid.block_header.raw_data.number)).blockID).toBe(solid.blockID);
    expect((await tw.trx.getBlockByHash(head.blockID)).blockID).toBe(head.blockID);
    expect(await tw.trx.getUnconfirmedTransactionInfo(signed.txID)).toMatchObject({ id: signed.txID });
    expect(await tw.trx.getTransactionInfo(signed.txID)).toEqual({});
    expect(await tw.trx.getUnconfirmedBalance(owner.tron)).toBe(1_000_000);
    expect(await tw.trx.getBalance(owner.tron)).toBe(0); // not solidified yet
    expect(await tw.trx.getAccount(tronAccount().tron)).toEqual({});
    const params = await tw.trx.getChainParameters();
    expect(params).toContainEqual({ key: 'getEnergyFee', value: 210 });

    await mine(chain.provider, TEST_SOLIDIFIED_LAG);
    expect(await tw.trx.getTransactionInfo(signed.txID)).toMatchObject({ id: signed.txID });
    expect(await tw.trx.getBalance(owner.tron)).toBe(1_000_000);
  });

  it('keeps the txID ⇄ EVM hash map across a restart when given a state file', async () => {
    const stateFile = join(await mkdtemp(join(tmpdir(), 'tron-facade-')), 'txs.jsonl');
    const first = await startTronFacade({ anvilRpcUrl: chain.anvil.rpcUrl, stateFile });
    const owner = tronAccount();
    const tw1 = tronWebOn(first);
    const signed = await tw1.trx.sign(await buildApprove(owner, tronAccount(), 8), owner.privateKey);
    await tw1.trx.sendRawTransaction(signed);
    await first.stop();
    const second = await startTronFacade({ anvilRpcUrl: chain.anvil.rpcUrl, stateFile });
    try {
      const info = await transactionInfo<TxJson>(second.url, signed.txID);
      expect(info).toMatchObject({ id: signed.txID, receipt: { result: 'SUCCESS' } });
    } finally {
      await second.stop();
    }
  });
});
