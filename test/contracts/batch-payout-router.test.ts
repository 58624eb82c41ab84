import {
  type Contract,
  getBytes,
  hexlify,
  Interface,
  type JsonRpcProvider,
  type LogDescription,
  type TransactionReceipt,
  type Wallet,
} from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { abi, deployContract } from '../../src/chains/contracts.ts';
import {
  type BatchTypedData,
  batchKey,
  buildBatchTypedData,
  normalizeSignatureV,
  recoverTypedDataSigner,
  typedDataDigest,
  typesForEthers,
} from '../../src/chains/payout-typed-data.ts';
import {
  advanceTime,
  balanceOf,
  chainNow,
  expectCustomError,
  freshAddress,
  fundedWallet,
  mined,
  testChain,
} from './helpers.ts';

let provider: JsonRpcProvider;
let chainId: number;
let relayer: Wallet;
let router: Contract;
let routerAddress: string;
let usdt: Contract;
let usdtAddress: string;
let nextNonce = 1n;

beforeAll(async () => {
  ({ provider, chainId } = await testChain());
  relayer = await fundedWallet(provider);
  ({ contract: router, address: routerAddress } = await deployContract(relayer, 'BatchPayoutRouter'));
  ({ contract: usdt, address: usdtAddress } = await deployContract(relayer, 'TetherToken', [
    'Tether USD',
    'USDT',
    6,
  ]));
});

/** A payout wallet holding `balance` of `token`, with the batch router approved for all of it. */
async function payoutWallet(token: Contract, balance: bigint): Promise<Wallet> {
  const w = await fundedWallet(provider);
  await mined(token.getFunction('mint')(w.address, balance));
  await mined((token.connect(w) as Contract).getFunction('approve')(routerAddress, balance));
  return w;
}

async function batch(
  merchant: string,
  amounts: bigint[],
  overrides: Partial<Parameters<typeof buildBatchTypedData>[0]> = {},
): Promise<BatchTypedData> {
  return buildBatchTypedData({
    chainId,
    router: routerAddress,
    token: usdtAddress,
    merchant,
    items: amounts.map((amount) => ({ recipient: freshAddress(), amount })),
    nonce: nextNonce++,
    deadline: (await chainNow(provider)) + 1800,
    ...overrides,
  });
}

function sign(signer: Wallet, td: BatchTypedData): Promise<string> {
  return signer.signTypedData(td.domain, typesForEthers(td), td.message);
}

const executeBatch = (td: BatchTypedData, signature: string) =>
  (router.connect(relayer) as Contract).getFunction('executeBatch')(td.message, signature);
const executeBatchStatic = (td: BatchTypedData, signature: string) =>
  (router.connect(relayer) as Contract).getFunction('executeBatch').staticCall(td.message, signature);

function routerEvents(receipt: TransactionReceipt): LogDescription[] {
  return receipt.logs.filter((l) => l.address === routerAddress).map((l) => router.interface.parseLog(l)!);
}

async function balances(token: Contract, td: BatchTypedData): Promise<bigint[]> {
  return Promise.all(td.message.items.map((i) => balanceOf(token, i.recipient)));
}

async function paidFlags(td: BatchTypedData): Promise<boolean[]> {
  return Promise.all(
    td.message.items.map(
      (_, i) =>
        router.getFunction('isItemPaid')(td.message.merchant, td.message.nonce, i) as Promise<boolean>,
    ),
  );
}

describe('BatchPayoutRouter.executeBatch', () => {
  it('pays every item of a signed batch and reports each one', async () => {
    const merchant = await payoutWallet(usdt, 10_000_000n);
    const td = await batch(merchant.address, [1_000_000n, 2_500_000n, 3_000_000n]);
    const signature = await sign(merchant, td);
    expect(recoverTypedDataSigner(td, signature)).toBe(merchant.address);
    expect(await router.getFunction('hashBatch')(td.message)).toBe(typedDataDigest(td));

    const receipt = await mined(executeBatch(td, signature));
    expect(await balances(usdt, td)).toEqual([1_000_000n, 2_500_000n, 3_000_000n]);
    expect(await balanceOf(usdt, merchant.address)).toBe(3_500_000n);
    expect(await balanceOf(usdt, routerAddress)).toBe(0n);
    expect(await paidFlags(td)).toEqual([true, true, true]);

    const key = batchKey(merchant.address, td.message.nonce);
    expect(await router.getFunction('batchKeyOf')(merchant.address, td.message.nonce)).toBe(key);
    const events = routerEvents(receipt);
    expect(events.map((e) => e.name)).toEqual(['ItemPaid', 'ItemPaid', 'ItemPaid', 'BatchExecuted']);
    td.message.items.forEach((item, i) => {
      expect(events[i]!.args.toObject()).toEqual({
        batchKey: key,
        index: BigInt(i),
        recipient: item.recipient,
        amount: BigInt(item.amount),
      });
    });
    expect(events[3]!.args.toObject()).toEqual({
      batchKey: key,
      merchant: merchant.address,
      nonce: BigInt(td.message.nonce),
      token: usdtAddress,
      paid: 3n,
      failed: 0n,
    });
  });

  it('leaves a blacklisted recipient unpaid while paying the others, then pays only it on resubmission', async () => {
    const merchant = await payoutWallet(usdt, 10_000n);
    const td = await batch(merchant.address, [1_000n, 2_000n, 3_000n]);
    const blocked = td.message.items[1]!.recipient;
    await mined(usdt.getFunction('addBlackList')(blocked));
    const signature = await sign(merchant, td);
    const key = batchKey(merchant.address, td.message.nonce);

    const first = routerEvents(await mined(executeBatch(td, signature)));
    expect(first.map((e) => e.name)).toEqual(['ItemPaid', 'ItemFailed', 'ItemPaid', 'BatchExecuted']);
    const failed = first[1]!.args;
    expect([failed.batchKey, failed.index, failed.recipient, failed.amount]).toEqual([
      key,
      1n,
      blocked,
      2_000n,
    ]);
    // The token's own revert reason travels in the event, so the service can store a failure_reason.
    const reason = new Interface(abi('TetherToken')).parseError(failed.reason as string);
    expect(reason?.name).toBe('Blacklisted');
    expect(reason?.args[0]).toBe(blocked);
    expect(first[3]!.args.paid).toBe(2n);
    expect(first[3]!.args.failed).toBe(1n);
    expect(await balances(usdt, td)).toEqual([1_000n, 0n, 3_000n]);
    expect(await paidFlags(td)).toEqual([true, false, true]);

    // Still blacklisted: a retry pays nothing and touches nobody else.
    const retry = routerEvents(await mined(executeBatch(td, signature)));
    expect(retry.map((e) => e.name)).toEqual(['ItemFailed', 'BatchExecuted']);
    expect(await balances(usdt, td)).toEqual([1_000n, 0n, 3_000n]);

    await mined(usdt.getFunction('removeBlackList')(blocked));
    const second = routerEvents(await mined(executeBatch(td, signature)));
    expect(second.map((e) => e.name)).toEqual(['ItemPaid', 'BatchExecuted']);
    expect(second[0]!.args.index).toBe(1n);
    expect(await balances(usdt, td)).toEqual([1_000n, 2_000n, 3_000n]);
    expect(await balanceOf(usdt, merchant.address)).toBe(4_000n);
    expect(await paidFlags(td)).toEqual([true, true, true]);
  });

  it('pays nothing twice when a fully paid batch is resubmitted', async () => {
    const merchant = await payoutWallet(usdt, 10_000n);
    const td = await batch(merchant.address, [1_000n, 1_000n]);
    const signature = await sign(merchant, td);
    await mined(executeBatch(td, signature));
    const again = routerEvents(await mined(executeBatch(td, signature)));
    expect(again.map((e) => e.name)).toEqual(['BatchExecuted']);
    expect(again[0]!.args.paid).toBe(0n);
    expect(again[0]!.args.failed).toBe(0n);
    expect(await balances(usdt, td)).toEqual([1_000n, 1_000n]);
    expect(await balanceOf(usdt, merchant.address)).toBe(8_000n);
  });

  it('rejects a batch past its deadline, also one that was partly paid before', async () => {
    const merchant = await payoutWallet(usdt, 10_000n);
    const expired = await batch(merchant.address, [1_000n], { deadline: (await chainNow(provider)) - 1 });
    await expectCustomError(executeBatchStatic(expired, await sign(merchant, expired)), 'BatchExpired', [
      'BatchPayoutRouter',
    ]);

    const td = await batch(merchant.address, [1_000n, 2_000n], { deadline: (await chainNow(provider)) + 60 });
    await mined(usdt.getFunction('addBlackList')(td.message.items[0]!.recipient));
    const signature = await sign(merchant, td);
    await mined(executeBatch(td, signature));
    await mined(usdt.getFunction('removeBlackList')(td.message.items[0]!.recipient));
    await advanceTime(provider, 120);
    await expectCustomError(executeBatchStatic(td, signature), 'BatchExpired', ['BatchPayoutRouter']);
    expect(await balances(usdt, td)).toEqual([0n, 2_000n]);
  });

  it('rejects a signature from another key, another chain or another router', async () => {
    const merchant = await payoutWallet(usdt, 10_000n);
    const td = await batch(merchant.address, [1_000n]);
    const intruder = await fundedWallet(provider);
    await expectCustomError(executeBatchStatic(td, await sign(intruder, td)), 'InvalidSignature', [
      'BatchPayoutRouter',
    ]);
    const otherChain = { ...td, domain: { ...td.domain, chainId: chainId + 1 } };
    await expectCustomError(executeBatchStatic(td, await sign(merchant, otherChain)), 'InvalidSignature', [
      'BatchPayoutRouter',
    ]);
    const otherRouter = { ...td, domain: { ...td.domain, verifyingContract: freshAddress() } };
    await expectCustomError(executeBatchStatic(td, await sign(merchant, otherRouter)), 'InvalidSignature', [
      'BatchPayoutRouter',
    ]);
    // A relayer cannot swap a recipient or amount under a valid signature.
    const signature = await sign(merchant, td);
    const tampered = structuredClone(td);
    tampered.message.items[0]!.amount = '1001';
    await expectCustomError(executeBatchStatic(tampered, signature), 'InvalidSignature', [
      'BatchPayoutRouter',
    ]);
    expect(await balanceOf(usdt, merchant.address)).toBe(10_000n);
  });

  it('rejects v = 0/1 and accepts the normalised signature', async () => {
    const merchant = await payoutWallet(usdt, 10_000n);
    const td = await batch(merchant.address, [1_000n]);
    const signature = await sign(merchant, td);
    const bytes = getBytes(signature);
    bytes[64] = bytes[64]! - 27;
    const raw = hexlify(bytes);
    await expectCustomError(executeBatchStatic(td, raw), 'InvalidSignature', ['BatchPayoutRouter']);
    await mined(executeBatch(td, normalizeSignatureV(raw)));
    expect(await balances(usdt, td)).toEqual([1_000n]);
  });

  it('treats a false return and an empty revert as failed items', async () => {
    const { contract: quirky, address: quirkyAddress } = await deployContract(relayer, 'QuirkyToken');
    const merchant = await payoutWallet(quirky, 10_000n);
    const td = await batch(merchant.address, [100n, 200n, 300n], { token: quirkyAddress });
    await mined(quirky.getFunction('setMode')(td.message.items[0]!.recipient, 1)); // returns false
    await mined(quirky.getFunction('setMode')(td.message.items[2]!.recipient, 2)); // reverts, no data
    const events = routerEvents(await mined(executeBatch(td, await sign(merchant, td))));
    expect(events.map((e) => e.name)).toEqual(['ItemFailed', 'ItemPaid', 'ItemFailed', 'BatchExecuted']);
    expect(events[0]!.args.reason).toBe(`0x${'0'.repeat(64)}`);
    expect(events[2]!.args.reason).toBe('0x');
    expect(await balances(quirky, td)).toEqual([0n, 200n, 0n]);
    expect(await paidFlags(td)).toEqual([false, true, false]);
  });

  it('blocks a token that re-enters to pay an item twice', async () => {
    const { contract: quirky, address: quirkyAddress } = await deployContract(relayer, 'QuirkyToken');
    const merchant = await payoutWallet(quirky, 10_000n);
    const td = await batch(merchant.address, [100n, 200n], { token: quirkyAddress });
    const signature = await sign(merchant, td);
    const reentry = router.interface.encodeFunctionData('executeBatch', [td.message, signature]);
    await mined(quirky.getFunction('setReentry')(routerAddress, reentry));
    await mined(executeBatch(td, signature));
    expect(await quirky.getFunction('reentryAttempted')()).toBe(true);
    expect(await quirky.getFunction('reentrySucceeded')()).toBe(false);
    expect(await balances(quirky, td)).toEqual([100n, 200n]);
    expect(await balanceOf(quirky, merchant.address)).toBe(9_700n);
  });

  it('tracks items across bitmap words (more than 256 items)', async () => {
    const { contract: quirky, address: quirkyAddress } = await deployContract(relayer, 'QuirkyToken');
    const merchant = await payoutWallet(quirky, 1_000_000n);
    const td = await batch(
      merchant.address,
      Array.from({ length: 260 }, () => 10n),
      { token: quirkyAddress },
    );
    for (const i of [3, 255, 256, 259]) {
      await mined(quirky.getFunction('setMode')(td.message.items[i]!.recipient, 2));
    }
    const signature = await sign(merchant, td);
    const first = routerEvents(await mined(executeBatch(td, signature)));
    expect(first.filter((e) => e.name === 'ItemFailed').map((e) => e.args.index)).toEqual([
      3n,
      255n,
      256n,
      259n,
    ]);
    expect(first.at(-1)!.args.paid).toBe(256n);

    for (const i of [3, 255, 256, 259]) {
      await mined(quirky.getFunction('setMode')(td.message.items[i]!.recipient, 0));
    }
    const second = routerEvents(await mined(executeBatch(td, signature)));
    expect(second.filter((e) => e.name === 'ItemPaid').map((e) => e.args.index)).toEqual([
      3n,
      255n,
      256n,
      259n,
    ]);
    expect((await paidFlags(td)).every(Boolean)).toBe(true);
    expect(await balanceOf(quirky, merchant.address)).toBe(1_000_000n - 2_600n);
  });

  it('rejects an empty batch', async () => {
    const merchant = await payoutWallet(usdt, 1n);
    const message = {
      token: usdtAddress,
      merchant: merchant.address,
      items: [],
      nonce: 1n,
      deadline: 2n ** 40n,
    };
    const digest = await router.getFunction('hashBatch')(message);
    const signature = merchant.signingKey.sign(digest).serialized;
    await expectCustomError(
      (router.connect(relayer) as Contract).getFunction('executeBatch').staticCall(message, signature),
      'EmptyBatch',
      ['BatchPayoutRouter'],
    );
  });
});
