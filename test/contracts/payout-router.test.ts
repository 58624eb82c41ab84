import { type Contract, getBytes, hexlify, type JsonRpcProvider, type Wallet } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployContract } from '../../src/chains/contracts.ts';
import {
  buildPayoutTypedData,
  normalizeSignatureV,
  type PayoutTypedData,
  recoverTypedDataSigner,
  typedDataDigest,
  typesForEthers,
} from '../../src/chains/payout-typed-data.ts';
import {
  balanceOf,
  chainNow,
  expectCustomError,
  freshAddress,
  fundedWallet,
  mined,
  minedRevert,
  testChain,
} from './helpers.ts';

let provider: JsonRpcProvider;
let chainId: number;
let relayer: Wallet;
let router: Contract;
let routerAddress: string;
let usdc: Contract;
let usdcAddress: string;
let nextNonce = 1n;

beforeAll(async () => {
  ({ provider, chainId } = await testChain());
  relayer = await fundedWallet(provider);
  ({ contract: router, address: routerAddress } = await deployContract(relayer, 'PayoutRouter'));
  ({ contract: usdc, address: usdcAddress } = await deployContract(relayer, 'TestToken', [
    'USD Coin',
    'USDC',
    6,
  ]));
});

/** A payout wallet holding `balance` USDC with `allowance` granted to `spender`. */
async function payoutWallet(balance: bigint, allowance = balance, spender = routerAddress): Promise<Wallet> {
  const w = await fundedWallet(provider);
  await mined(usdc.getFunction('mint')(w.address, balance));
  await mined((usdc.connect(w) as Contract).getFunction('approve')(spender, allowance));
  return w;
}

async function order(
  merchant: string,
  overrides: Partial<Parameters<typeof buildPayoutTypedData>[0]> = {},
): Promise<PayoutTypedData> {
  return buildPayoutTypedData({
    chainId,
    router: routerAddress,
    token: usdcAddress,
    merchant,
    recipient: freshAddress(),
    amount: 125_500_000n,
    nonce: nextNonce++,
    deadline: (await chainNow(provider)) + 1800,
    ...overrides,
  });
}

/** Signs exactly what a wallet would sign given the returned typed_data. */
function sign(signer: Wallet, td: PayoutTypedData): Promise<string> {
  return signer.signTypedData(td.domain, typesForEthers(td), td.message);
}

function execute(td: PayoutTypedData, signature: string) {
  return (router.connect(relayer) as Contract).getFunction('execute')(td.message, signature);
}

function executeStatic(td: PayoutTypedData, signature: string) {
  return (router.connect(relayer) as Contract).getFunction('execute').staticCall(td.message, signature);
}

/** The same signature with v as 0/1, as some wallets and HSMs produce it. */
function withRawV(signature: string): string {
  const bytes = getBytes(signature);
  bytes[64] = bytes[64]! - 27;
  return hexlify(bytes);
}

describe('PayoutRouter.execute', () => {
  it('pays a signed order relayed by anyone and records the nonce', async () => {
    const merchant = await payoutWallet(200_000_000n);
    const td = await order(merchant.address);
    const signature = await sign(merchant, td);
    expect(recoverTypedDataSigner(td, signature)).toBe(merchant.address);
    expect(await router.getFunction('hashOrder')(td.message)).toBe(typedDataDigest(td));

    const receipt = await mined(execute(td, signature));
    expect(await balanceOf(usdc, td.message.recipient)).toBe(125_500_000n);
    expect(await balanceOf(usdc, merchant.address)).toBe(74_500_000n);
    expect(await balanceOf(usdc, routerAddress)).toBe(0n);
    expect(await router.getFunction('nonceUsed')(merchant.address, td.message.nonce)).toBe(true);

    const ev = receipt.logs
      .filter((l) => l.address === routerAddress)
      .map((l) => router.interface.parseLog(l)!);
    expect(ev.map((e) => e.name)).toEqual(['PayoutExecuted']);
    expect(ev[0]!.args.toObject()).toEqual({
      merchant: merchant.address,
      nonce: BigInt(td.message.nonce),
      recipient: td.message.recipient,
      token: usdcAddress,
      amount: 125_500_000n,
    });
  });

  it('rejects a signature from another key', async () => {
    const merchant = await payoutWallet(1_000n);
    const td = await order(merchant.address, { amount: 1_000n });
    const intruder = await fundedWallet(provider);
    await expectCustomError(executeStatic(td, await sign(intruder, td)), 'InvalidSignature', [
      'PayoutRouter',
    ]);
    expect(await balanceOf(usdc, merchant.address)).toBe(1_000n);
  });

  it('refuses to replay a nonce, even for a different order', async () => {
    const merchant = await payoutWallet(3_000n);
    const td = await order(merchant.address, { amount: 1_000n });
    const signature = await sign(merchant, td);
    await mined(execute(td, signature));
    await expectCustomError(executeStatic(td, signature), 'NonceAlreadyUsed', ['PayoutRouter']);
    const again = await order(merchant.address, { amount: 1_000n, nonce: td.message.nonce });
    await expectCustomError(executeStatic(again, await sign(merchant, again)), 'NonceAlreadyUsed', [
      'PayoutRouter',
    ]);
    expect(await balanceOf(usdc, merchant.address)).toBe(2_000n);
  });

  it('rejects an order past its deadline, also when mined', async () => {
    const merchant = await payoutWallet(1_000n);
    const td = await order(merchant.address, { amount: 1_000n, deadline: (await chainNow(provider)) - 1 });
    const signature = await sign(merchant, td);
    await expectCustomError(executeStatic(td, signature), 'PayoutExpired', ['PayoutRouter']);
    await minedRevert(
      (o) => (router.connect(relayer) as Contract).getFunction('execute')(td.message, signature, o),
      provider,
    );
    expect(await balanceOf(usdc, merchant.address)).toBe(1_000n);
    expect(await router.getFunction('nonceUsed')(merchant.address, td.message.nonce)).toBe(false);
  });

  it('rejects a signature made for another chain id', async () => {
    const merchant = await payoutWallet(1_000n);
    const td = await order(merchant.address, { amount: 1_000n, chainId: chainId + 1 });
    await expectCustomError(executeStatic(td, await sign(merchant, td)), 'InvalidSignature', [
      'PayoutRouter',
    ]);
  });

  it('rejects a signature made for another router, which alone can execute it', async () => {
    const other = await deployContract(relayer, 'PayoutRouter');
    const merchant = await payoutWallet(1_000n, 1_000n, other.address);
    await mined((usdc.connect(merchant) as Contract).getFunction('approve')(routerAddress, 1_000n));
    const td = await order(merchant.address, { amount: 1_000n, router: other.address });
    const signature = await sign(merchant, td);
    await expectCustomError(executeStatic(td, signature), 'InvalidSignature', ['PayoutRouter']);
    await mined((other.contract.connect(relayer) as Contract).getFunction('execute')(td.message, signature));
    expect(await balanceOf(usdc, td.message.recipient)).toBe(1_000n);
  });

  it('rejects v = 0/1 on-chain, while the normalised signature pays', async () => {
    const merchant = await payoutWallet(1_000n);
    const td = await order(merchant.address, { amount: 1_000n });
    const signature = await sign(merchant, td);
    const raw = withRawV(signature);
    expect([0, 1]).toContain(getBytes(raw)[64]);
    // The service accepts such a signature at authorize (it recovers to the wallet)...
    expect(recoverTypedDataSigner(td, raw)).toBe(merchant.address);
    // ...but relayed as-is the router reverts and nothing moves.
    await expectCustomError(executeStatic(td, raw), 'InvalidSignature', ['PayoutRouter']);
    await minedRevert(
      (o) => (router.connect(relayer) as Contract).getFunction('execute')(td.message, raw, o),
      provider,
    );
    expect(await router.getFunction('nonceUsed')(merchant.address, td.message.nonce)).toBe(false);
    // D7: normalised before relaying, the payout completes.
    expect(normalizeSignatureV(raw)).toBe(signature.toLowerCase());
    await mined(execute(td, normalizeSignatureV(raw)));
    expect(await balanceOf(usdc, td.message.recipient)).toBe(1_000n);
  });

  it('rejects a malleable high-s signature, while its normalised twin pays', async () => {
    const merchant = await payoutWallet(1_000n);
    const td = await order(merchant.address, { amount: 1_000n });
    const signature = await sign(merchant, td);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const bytes = getBytes(signature);
    const highS = (n - BigInt(hexlify(bytes.slice(32, 64)))).toString(16).padStart(64, '0');
    const flippedV = bytes[64] === 27 ? '1c' : '1b';
    const malleable = `${hexlify(bytes.slice(0, 32))}${highS}${flippedV}`;
    await expectCustomError(executeStatic(td, malleable), 'InvalidSignature', ['PayoutRouter']);
    expect(normalizeSignatureV(malleable)).toBe(signature.toLowerCase());
    await mined(execute(td, normalizeSignatureV(malleable)));
  });

  it('reverts when the allowance is below the amount, leaving the nonce unused', async () => {
    const merchant = await payoutWallet(2_000n, 999n);
    const td = await order(merchant.address, { amount: 1_000n });
    await expectCustomError(executeStatic(td, await sign(merchant, td)), 'ERC20InsufficientAllowance', [
      'PayoutRouter',
      'TestToken',
    ]);
    expect(await router.getFunction('nonceUsed')(merchant.address, td.message.nonce)).toBe(false);
    expect(await balanceOf(usdc, merchant.address)).toBe(2_000n);
  });

  it('pays with a USDT-like token that returns no bool', async () => {
    const usdt = await deployContract(relayer, 'TetherToken', ['Tether USD', 'USDT', 6]);
    const merchant = await fundedWallet(provider);
    await mined(usdt.contract.getFunction('mint')(merchant.address, 5_000_000n));
    await mined(
      (usdt.contract.connect(merchant) as Contract).getFunction('approve')(routerAddress, 5_000_000n),
    );
    const td = await order(merchant.address, { token: usdt.address, amount: 5_000_000n });
    await mined(execute(td, await sign(merchant, td)));
    expect(await balanceOf(usdt.contract, td.message.recipient)).toBe(5_000_000n);
  });
});
