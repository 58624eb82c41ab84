/**
 * The Tron adapter against the facade: TRC-20 reads, the section 2.7 approve flow end to end with a
 * tronweb signature, broadcast refusals as validation errors, and transaction status.
 */
import type { Contract } from 'ethers';
import { utils } from 'tronweb';
import { beforeAll, describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes, sha256Hex } from '../../src/chains/tron/hex.ts';
import {
  createTronClient,
  decodeTronTransaction,
  parseSignedTransaction,
  signedFromParts,
  type TronClient,
  verifyTxSignature,
} from '../../src/chains/tron/index.ts';
import { decodeRaw, encodeRaw } from '../../src/chains/tron/tx-raw.ts';
import { TRON_CHAIN_ID } from '../../src/devstack/tron-facade/index.ts';
import { AppError } from '../../src/errors.ts';
import {
  deployToken,
  mine,
  minedTronState,
  TEST_SOLIDIFIED_LAG,
  type TronAccount,
  type TronTestChain,
  tronAccount,
  tronChain,
  tronWebOn,
} from './support.ts';

let chain: TronTestChain;
let client: TronClient;
let usdt: { address: string; contract: Contract };

beforeAll(async () => {
  chain = await tronChain();
  usdt = await deployToken(chain.provider, 'TetherToken', 6);
  client = createTronClient({
    network: { id: 'tron', chainId: TRON_CHAIN_ID, rpcUrls: [chain.facade.url], tokens: [usdt] },
  });
});

/** Signs a txID the way a Tron wallet does, with tronweb's own signing code. */
const signTxId = (account: TronAccount, txId: string): string =>
  (utils.crypto.signTransaction(account.privateKey, { txID: txId }) as { signature: string[] }).signature[0]!;

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('Tron adapter: TRC-20 reads', () => {
  it('reads balance, decimals and allowance with addresses in any spelling', async () => {
    const holder = tronAccount();
    await (await usdt.contract.mint!(holder.evm, 1_234_567n)).wait();
    expect(await client.balanceOf(usdt.address, holder.tron)).toBe(1_234_567n);
    expect(await client.balanceOf(utils.address.fromHex(`41${usdt.address.slice(2)}`), holder.evm)).toBe(
      1_234_567n,
    );
    expect(await client.decimals(usdt.address)).toBe(6);
    expect(await client.allowance(usdt.address, holder.tron, tronAccount().tron)).toBe(0n);
    const dai = await deployToken(chain.provider, 'TestToken', 18);
    expect(await client.decimals(dai.address)).toBe(18);
  });

  it('refuses bad addresses and calls to non-contracts as validation errors', async () => {
    expect((await rejection(client.balanceOf(usdt.address, 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwc'))).code).toBe(
      'validation',
    );
    expect((await rejection(client.decimals(tronAccount().evm))).code).toBe('validation');
  });
});

describe('Tron adapter: approve build → sign → broadcast', () => {
  it('builds a verified approve, broadcasts its signature, and the allowance becomes visible', async () => {
    const owner = tronAccount();
    const router = tronAccount();
    const built = await client.buildApprove({
      token: usdt.address,
      owner: owner.tron,
      spender: router.evm,
      amount: 250_000_000n,
    });
    expect(built.tx_id).toBe(sha256Hex(hexToBytes(built.raw_transaction)));
    expect(built.fee_limit).toBe(100_000_000);
    expect(built.expiration).toBeGreaterThan(Date.now() + 59 * 60_000);
    expect(decodeTronTransaction(built.raw_transaction)).toMatchObject({
      txId: built.tx_id,
      owner: owner.evm,
      contract: usdt.address,
      feeLimit: built.fee_limit,
      expiration: built.expiration,
      approve: { spender: router.evm, amount: 250_000_000n },
    });

    const signature = signTxId(owner, built.tx_id);
    expect(verifyTxSignature(built.tx_id, signature, owner.evm)).toBe(true);
    expect(verifyTxSignature(`0x${built.tx_id}`, `0x${signature}`, router.evm)).toBe(false);
    const sent = await client.broadcast(signedFromParts(built.raw_transaction, `0x${signature}`));
    expect(sent).toEqual({ txId: built.tx_id, duplicate: false });

    const state = await minedTronState(client, built.tx_id);
    expect(await client.allowance(usdt.address, owner.tron, router.tron)).toBe(250_000_000n);
    expect(state).toMatchObject({
      status: 'confirmed',
      solidified: false,
      result: 'SUCCESS',
      confirmations: 1,
    });
    const tx = await client.getTransaction(built.tx_id);
    expect(tx?.approve).toEqual({ spender: router.evm, amount: 250_000_000n });

    await mine(chain.provider, TEST_SOLIDIFIED_LAG);
    expect(await client.getTxState(built.tx_id)).toMatchObject({ status: 'confirmed', solidified: true });
    // A retried broadcast is not an error.
    expect(await client.broadcast(signedFromParts(built.raw_transaction, signature))).toEqual({
      txId: built.tx_id,
      duplicate: true,
    });
  });

  it('broadcasts a whole signed transaction JSON as a Tron wallet produces it', async () => {
    const owner = tronAccount();
    const router = tronAccount();
    const tw = tronWebOn(chain.facade);
    const built = await tw.transactionBuilder.triggerSmartContract(
      utils.address.fromHex(`41${usdt.address.slice(2)}`),
      'approve(address,uint256)',
      { feeLimit: 50_000_000 },
      [
        { type: 'address', value: router.tron },
        { type: 'uint256', value: 99 },
      ],
      owner.tron,
    );
    const signed = await tw.trx.sign(built.transaction, owner.privateKey);
    const parsed = parseSignedTransaction(JSON.stringify(signed));
    expect(parsed.txId).toBe(signed.txID);
    expect(decodeTronTransaction(parsed.rawTransaction).approve).toEqual({
      spender: router.evm,
      amount: 99n,
    });
    await client.broadcast(parsed);
    expect(await client.allowance(usdt.address, owner.evm, router.evm)).toBe(99n);

    const tampered = { ...signed, raw_data: { ...signed.raw_data, fee_limit: 1 } };
    expect((await rejection(Promise.resolve().then(() => parseSignedTransaction(tampered)))).code).toBe(
      'validation',
    );
    const twoSigs = { ...signed, signature: [signed.signature![0], signed.signature![0]] };
    expect(() => parseSignedTransaction(twoSigs)).toThrow(AppError);
    expect(() => parseSignedTransaction('{nope')).toThrow(AppError);
  });

  it('maps network refusals to validation errors and never executes them', async () => {
    const owner = tronAccount();
    const router = tronAccount();
    const built = await client.buildApprove({
      token: usdt.address,
      owner: owner.evm,
      spender: router.evm,
      amount: 5n,
    });

    const foreign = await rejection(
      client.broadcast(signedFromParts(built.raw_transaction, signTxId(router, built.tx_id))),
    );
    expect(foreign.code).toBe('validation');
    expect(foreign.details).toMatchObject({ node_code: 'SIGERROR' });

    // The same approve, but already expired when signed.
    const head = await client.getBlockNumber();
    const headTime = (await chain.provider.getBlock(head))!.timestamp * 1000;
    const expiredRaw = bytesToHex(
      encodeRaw({ ...decodeRaw(hexToBytes(built.raw_transaction)), expiration: headTime - 1 }),
    );
    const expiredId = sha256Hex(hexToBytes(expiredRaw));
    const expired = await rejection(
      client.broadcast(signedFromParts(expiredRaw, signTxId(owner, expiredId))),
    );
    expect(expired.details).toMatchObject({ node_code: 'TRANSACTION_EXPIRATION_ERROR' });

    expect(await client.allowance(usdt.address, owner.evm, router.evm)).toBe(0n);
    expect(await client.getTxState(built.tx_id)).toMatchObject({ status: 'not_found' });
    expect(await client.getTxState(expiredId)).toMatchObject({ status: 'not_found' });
    expect(() => signedFromParts(built.raw_transaction, 'abcd')).toThrow(AppError);
    expect(() => decodeTronTransaction('zz')).toThrow(AppError);
  });

  it('reports a broadcast transaction as pending until a block includes it', async () => {
    const owner = tronAccount();
    const router = tronAccount();
    const built = await client.buildApprove({
      token: usdt.address,
      owner: owner.evm,
      spender: router.evm,
      amount: 6n,
    });
    await chain.provider.send('evm_setAutomine', [false]);
    try {
      await client.broadcast(signedFromParts(built.raw_transaction, signTxId(owner, built.tx_id)));
      expect(await client.getTxState(built.tx_id)).toMatchObject({ status: 'pending', confirmations: 0 });
      expect((await client.getTransaction(built.tx_id))?.approve).toEqual({
        spender: router.evm,
        amount: 6n,
      });
      await chain.provider.send('evm_mine', []);
    } finally {
      await chain.provider.send('evm_setAutomine', [true]);
    }
    expect(await client.getTxState(built.tx_id)).toMatchObject({ status: 'confirmed', confirmations: 1 });
    expect((await client.getTransaction(built.tx_id))?.txId).toBe(built.tx_id);
  });

  it('reports a reverted call as failed', async () => {
    const owner = tronAccount();
    // transfer() with no balance reverts in the USDT-like token.
    const data = usdt.contract.interface.encodeFunctionData('transfer', [tronAccount().evm, 1n]);
    const built = await client.buildTrigger({ owner: owner.tron, contract: usdt.address, data });
    await client.broadcast(signedFromParts(built.raw_transaction, signTxId(owner, built.tx_id)));
    expect(await minedTronState(client, built.tx_id)).toMatchObject({ status: 'failed', result: 'REVERT' });
    expect(decodeTronTransaction(built.raw_transaction).approve).toBeNull();
  });
});
