import { type Contract, id, type JsonRpcProvider, type Wallet } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployContract } from '../../src/chains/contracts.ts';
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
let deployer: Wallet;
let router: Contract;
let routerAddress: string;
let usdc: Contract;
let usdt: Contract;

beforeAll(async () => {
  ({ provider } = await testChain());
  deployer = await fundedWallet(provider);
  ({ contract: router, address: routerAddress } = await deployContract(deployer, 'PaymentRouter'));
  usdc = (await deployContract(deployer, 'TestToken', ['USD Coin', 'USDC', 6])).contract;
  usdt = (await deployContract(deployer, 'TetherToken', ['Tether USD', 'USDT', 6])).contract;
});

/** A player holding `amount` of `token` who approved the router for it. */
async function player(token: Contract, amount: bigint): Promise<Wallet> {
  const p = await fundedWallet(provider);
  await mined(token.getFunction('mint')(p.address, amount));
  await mined((token.connect(p) as Contract).getFunction('approve')(routerAddress, amount));
  return p;
}

describe('PaymentRouter.pay', () => {
  it('moves the tokens from the payer straight to the merchant and emits Payment', async () => {
    const payer = await player(usdc, 125_500_000n);
    const merchant = freshAddress();
    const orderRef = id('cs_test_session_1');
    const deadline = (await chainNow(provider)) + 600;
    const tokenAddress = await usdc.getAddress();
    const receipt = await mined(
      (router.connect(payer) as Contract).getFunction('pay')(
        tokenAddress,
        125_500_000n,
        merchant,
        orderRef,
        deadline,
      ),
    );
    expect(await balanceOf(usdc, merchant)).toBe(125_500_000n);
    expect(await balanceOf(usdc, payer.address)).toBe(0n);
    expect(await balanceOf(usdc, routerAddress)).toBe(0n);

    const events = receipt.logs
      .filter((l) => l.address === routerAddress)
      .map((l) => router.interface.parseLog(l)!);
    expect(events).toHaveLength(1);
    expect(events[0]!.name).toBe('Payment');
    expect(events[0]!.args.toObject()).toEqual({
      orderRef,
      token: tokenAddress,
      payer: payer.address,
      merchant,
      amount: 125_500_000n,
    });
    // The listener filters by order_ref: it is the first indexed topic.
    expect(receipt.logs.find((l) => l.address === routerAddress)!.topics[1]).toBe(orderRef);
  });

  it('accepts payment in the deadline second itself', async () => {
    const payer = await player(usdc, 10n);
    const merchant = freshAddress();
    const deadline = (await chainNow(provider)) + 30;
    await provider.send('evm_setNextBlockTimestamp', [deadline]);
    await mined(
      (router.connect(payer) as Contract).getFunction('pay')(
        await usdc.getAddress(),
        10n,
        merchant,
        id('x'),
        deadline,
      ),
    );
    expect(await balanceOf(usdc, merchant)).toBe(10n);
  });

  it('reverts after the deadline and moves nothing, even when mined', async () => {
    const payer = await player(usdc, 50n);
    const merchant = freshAddress();
    const deadline = (await chainNow(provider)) - 1;
    const pay = (router.connect(payer) as Contract).getFunction('pay');
    const args = [await usdc.getAddress(), 50n, merchant, id('late'), deadline] as const;
    await expectCustomError(pay.staticCall(...args), 'PaymentExpired', ['PaymentRouter']);
    // The session flow's "reverted" step: the transaction is mined, fails, and only gas is spent.
    const receipt = await minedRevert((o) => pay(...args, o), provider);
    expect(receipt.logs).toHaveLength(0);
    expect(await balanceOf(usdc, payer.address)).toBe(50n);
    expect(await balanceOf(usdc, merchant)).toBe(0n);
  });

  it('refuses a zero amount or zero merchant', async () => {
    const payer = await player(usdc, 5n);
    const pay = (router.connect(payer) as Contract).getFunction('pay');
    const deadline = (await chainNow(provider)) + 600;
    const token = await usdc.getAddress();
    await expectCustomError(pay.staticCall(token, 0n, freshAddress(), id('z'), deadline), 'ZeroAmount', [
      'PaymentRouter',
    ]);
    await expectCustomError(
      pay.staticCall(token, 5n, '0x0000000000000000000000000000000000000000', id('z'), deadline),
      'ZeroMerchant',
      ['PaymentRouter'],
    );
  });

  it('works with a USDT-like token that returns no bool', async () => {
    const payer = await player(usdt, 7_000_000n);
    const merchant = freshAddress();
    const deadline = (await chainNow(provider)) + 600;
    await mined(
      (router.connect(payer) as Contract).getFunction('pay')(
        await usdt.getAddress(),
        7_000_000n,
        merchant,
        id('usdt'),
        deadline,
      ),
    );
    expect(await balanceOf(usdt, merchant)).toBe(7_000_000n);
  });

  it('reverts without allowance, and on a blacklisted payer, moving nothing', async () => {
    const payer = await fundedWallet(provider);
    await mined(usdt.getFunction('mint')(payer.address, 100n));
    const pay = (router.connect(payer) as Contract).getFunction('pay');
    const deadline = (await chainNow(provider)) + 600;
    const token = await usdt.getAddress();
    await expectCustomError(
      pay.staticCall(token, 100n, freshAddress(), id('a'), deadline),
      'InsufficientAllowance',
      ['TetherToken'],
    );
    await mined((usdt.connect(payer) as Contract).getFunction('approve')(routerAddress, 100n));
    await mined(usdt.getFunction('addBlackList')(payer.address));
    await expectCustomError(pay.staticCall(token, 100n, freshAddress(), id('b'), deadline), 'Blacklisted', [
      'TetherToken',
    ]);
    expect(await balanceOf(usdt, payer.address)).toBe(100n);
  });
});
