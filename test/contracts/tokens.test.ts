import type { Contract, JsonRpcProvider, Wallet } from 'ethers';
import { Interface } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractAt, deployContract } from '../../src/chains/contracts.ts';
import { balanceOf, expectCustomError, freshAddress, fundedWallet, mined, testChain } from './helpers.ts';

let provider: JsonRpcProvider;
let owner: Wallet;
let other: Wallet;
let usdt: Contract;
let dai: Contract;

beforeAll(async () => {
  ({ provider } = await testChain());
  owner = await fundedWallet(provider);
  other = await fundedWallet(provider);
  usdt = (await deployContract(owner, 'TetherToken', ['Tether USD', 'USDT', 6])).contract;
  dai = (await deployContract(owner, 'TestToken', ['Dai Stablecoin', 'DAI', 18])).contract;
});

describe('TestToken', () => {
  it('has the constructor metadata and lets anyone mint', async () => {
    expect(await dai.getFunction('name')()).toBe('Dai Stablecoin');
    expect(await dai.getFunction('symbol')()).toBe('DAI');
    expect(await dai.getFunction('decimals')()).toBe(18n);
    const to = freshAddress();
    await mined((dai.connect(other) as Contract).getFunction('mint')(to, 5n));
    expect(await balanceOf(dai, to)).toBe(5n);
  });
});

describe('TetherToken (USDT-like)', () => {
  it('returns no value from transfer, transferFrom and approve', async () => {
    // Read the raw return data of the calls: USDT's quirk is an empty return, not `true`.
    await mined(usdt.getFunction('mint')(owner.address, 1_000n));
    const iface = usdt.interface;
    const target = await usdt.getAddress();
    for (const data of [
      iface.encodeFunctionData('transfer', [other.address, 1n]),
      iface.encodeFunctionData('approve', [other.address, 1n]),
    ]) {
      expect(await provider.call({ to: target, from: owner.address, data })).toBe('0x');
    }
    await mined(usdt.getFunction('approve')(other.address, 10n));
    const tf = iface.encodeFunctionData('transferFrom', [owner.address, other.address, 3n]);
    expect(await provider.call({ to: target, from: other.address, data: tf })).toBe('0x');
    // An ERC-20 ABI expecting bool cannot decode that, which is why routers must use SafeERC20.
    const erc20 = new Interface(['function transfer(address,uint256) returns (bool)']);
    expect(() => erc20.decodeFunctionResult('transfer', '0x')).toThrow();
  });

  it('reverts transfers to or from a blacklisted address until removed', async () => {
    const listed = await fundedWallet(provider);
    await mined(usdt.getFunction('mint')(owner.address, 100n));
    await mined(usdt.getFunction('mint')(listed.address, 100n));
    await mined(usdt.getFunction('addBlackList')(listed.address));
    expect(await usdt.getFunction('isBlackListed')(listed.address)).toBe(true);
    await expectCustomError(usdt.getFunction('transfer').staticCall(listed.address, 1n), 'Blacklisted', [
      'TetherToken',
    ]);
    const asListed = usdt.connect(listed) as Contract;
    await expectCustomError(asListed.getFunction('transfer').staticCall(owner.address, 1n), 'Blacklisted', [
      'TetherToken',
    ]);
    await mined(usdt.getFunction('removeBlackList')(listed.address));
    await mined(usdt.getFunction('transfer')(listed.address, 1n));
    expect(await balanceOf(usdt, listed.address)).toBe(101n);
  });

  it('reserves mint and the blacklist to the owner', async () => {
    const asOther = usdt.connect(other) as Contract;
    await expectCustomError(asOther.getFunction('mint').staticCall(other.address, 1n), 'NotOwner', [
      'TetherToken',
    ]);
    await expectCustomError(asOther.getFunction('addBlackList').staticCall(owner.address), 'NotOwner', [
      'TetherToken',
    ]);
    expect(await usdt.getFunction('decimals')()).toBe(6n);
  });
});

describe('Multicall3', () => {
  it('batches reads with aggregate3 and tolerates an allowed failure', async () => {
    const mc = (await deployContract(owner, 'Multicall3')).contract;
    const holder = freshAddress();
    await mined(dai.getFunction('mint')(holder, 42n));
    const daiAddress = await dai.getAddress();
    const results = (await mc.getFunction('aggregate3').staticCall([
      {
        target: daiAddress,
        allowFailure: false,
        callData: dai.interface.encodeFunctionData('balanceOf', [holder]),
      },
      { target: daiAddress, allowFailure: true, callData: '0xdeadbeef' },
    ])) as { success: boolean; returnData: string }[];
    expect(results[0]!.success).toBe(true);
    expect(BigInt(results[0]!.returnData)).toBe(42n);
    expect(results[1]!.success).toBe(false);
    const { chainId } = await provider.getNetwork();
    expect(await mc.getFunction('getChainId')()).toBe(chainId);
    const viaHelper = contractAt('Multicall3', await mc.getAddress(), provider);
    expect(await viaHelper.getFunction('getBlockNumber')()).toBeGreaterThan(0n);
  });
});
