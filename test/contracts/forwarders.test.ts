import {
  AbiCoder,
  type Contract,
  concat,
  getCreate2Address,
  id,
  type JsonRpcProvider,
  keccak256,
  type LogDescription,
  type TransactionReceipt,
  toBeHex,
  type Wallet,
} from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import { contractAt, deployContract } from '../../src/chains/contracts.ts';
import { forwarderAddress } from '../../src/modules/deposit/deposit.address.ts';
import { balanceOf, expectCustomError, freshAddress, fundedWallet, mined, testChain } from './helpers.ts';

let provider: JsonRpcProvider;
let service: Wallet;
let feeWallet: string;
let factory: Contract;
let factoryAddress: string;
let implementation: string;
let usdc: Contract;
let usdcAddress: string;

const FEE = 1_000_000n; // 1 USDC

beforeAll(async () => {
  ({ provider } = await testChain());
  service = await fundedWallet(provider);
  feeWallet = freshAddress();
  ({ contract: factory, address: factoryAddress } = await deployContract(service, 'ForwarderFactory', [
    service.address,
    feeWallet,
    '0xff',
  ]));
  implementation = (await factory.getFunction('implementation')()) as string;
  ({ contract: usdc, address: usdcAddress } = await deployContract(service, 'TestToken', [
    'USD Coin',
    'USDC',
    6,
  ]));
  await mined(factory.getFunction('setFee')(usdcAddress, FEE));
});

/** The CREATE2 address derived off-chain: OZ clone-with-immutable-args init code, wallet as the argument. */
function offChainPredict(settlementWallet: string, playerKey: string): string {
  const initCode = concat([
    '0x61',
    toBeHex(20 + 0x2d, 2),
    '0x3d81600a3d39f3363d3d373d3d3d363d73',
    implementation,
    '0x5af43d82803e903d91602b57fd5bf3',
    settlementWallet,
  ]);
  const salt = keccak256(
    AbiCoder.defaultAbiCoder().encode(['address', 'bytes32'], [settlementWallet, playerKey]),
  );
  return getCreate2Address(factoryAddress, salt, keccak256(initCode));
}

function factoryEvents(receipt: TransactionReceipt): LogDescription[] {
  return receipt.logs.filter((l) => l.address === factoryAddress).map((l) => factory.interface.parseLog(l)!);
}

const predict = (wallet: string, key: string) =>
  factory.getFunction('predict')(wallet, key) as Promise<string>;
const sweep = (wallet: string, key: string, token: string, from: Wallet = service) =>
  mined((factory.connect(from) as Contract).getFunction('sweep')(wallet, key, token));

describe('ForwarderFactory on the TVM (CREATE2 prefix 0x41)', () => {
  it('refuses a prefix that is neither the EVM’s nor the TVM’s', async () => {
    await expect(
      deployContract(service, 'ForwarderFactory', [service.address, feeWallet, '0x00']),
    ).rejects.toThrow(/UnknownCreate2Prefix|revert/);
  });

  it('predicts what the service’s TVM rule gives, and a sweep follows the clone the chain actually created', async () => {
    const { contract: tvm, address: tvmAddress } = await deployContract(service, 'ForwarderFactory', [
      service.address,
      feeWallet,
      '0x41',
    ]);
    expect(await tvm.getFunction('create2Prefix')()).toBe('0x41');
    const site = {
      prefix: '0x41' as const,
      factory: tvmAddress,
      implementation: (await tvm.getFunction('implementation')()) as string,
    };
    const wallet = freshAddress();
    const key = id('merchant-1:player-1:tron');
    // The service's TVM rule is pinned to a public mainnet vector (test/deposit/address-rule.test.ts);
    // the contract's own prediction must now agree with it.
    const predicted = (await tvm.getFunction('predict')(wallet, key)) as string;
    expect(predicted).toBe(forwarderAddress(site, wallet, key));
    // anvil hashes 0xff, so here the clone lands elsewhere: the sweep must use that address (the old
    // factory called the predicted one, where nothing is deployed, and the sweep reverted).
    const actual = forwarderAddress({ ...site, prefix: '0xff' }, wallet, key);
    expect(actual).not.toBe(predicted);
    await mined(usdc.getFunction('mint')(actual, 3_000_000n));
    const receipt = await mined(
      (tvm.connect(service) as Contract).getFunction('sweep')(wallet, key, usdcAddress),
    );
    const events = receipt.logs
      .filter((l) => l.address === tvmAddress)
      .map((l) => tvm.interface.parseLog(l)!);
    expect(events.map((e) => e.name)).toEqual(['ForwarderDeployed', 'Swept']);
    expect(events[0]!.args.forwarder).toBe(actual);
    // This factory charges no fee: everything reaches the settlement wallet.
    expect(await balanceOf(usdc, wallet)).toBe(3_000_000n);
    expect(await balanceOf(usdc, actual)).toBe(0n);
  });
});

describe('ForwarderFactory', () => {
  it('predicts the address a sweep deploys, before anything exists there', async () => {
    const wallet = freshAddress();
    const key = id('merchant-1:player-1:eth');
    const predicted = await predict(wallet, key);
    expect(predicted).toBe(offChainPredict(wallet, key));
    expect(await provider.getCode(predicted)).toBe('0x');

    await mined(usdc.getFunction('mint')(predicted, 5_000_000n));
    const events = factoryEvents(await sweep(wallet, key, usdcAddress));
    expect(events.map((e) => e.name)).toEqual(['ForwarderDeployed', 'Swept']);
    expect(events[0]!.args.toObject()).toEqual({
      forwarder: predicted,
      settlementWallet: wallet,
      playerKey: key,
    });
    expect(await provider.getCode(predicted)).not.toBe('0x');
    const forwarder = contractAt('DepositForwarder', predicted, provider);
    expect(await forwarder.getFunction('settlementWallet')()).toBe(wallet);
    expect(await forwarder.getFunction('FACTORY')()).toBe(factoryAddress);
  });

  it('sweeps the balance minus the fee to the settlement wallet and the fee to the fee wallet', async () => {
    const wallet = freshAddress();
    const key = id('player-fee');
    const address = await predict(wallet, key);
    const feeBefore = await balanceOf(usdc, feeWallet);
    await mined(usdc.getFunction('mint')(address, 125_500_000n));

    const events = factoryEvents(await sweep(wallet, key, usdcAddress));
    expect(events.at(-1)!.name).toBe('Swept');
    expect(events.at(-1)!.args.toObject()).toEqual({
      forwarder: address,
      token: usdcAddress,
      settlementWallet: wallet,
      amount: 124_500_000n,
      fee: FEE,
    });
    expect(await balanceOf(usdc, wallet)).toBe(124_500_000n);
    expect((await balanceOf(usdc, feeWallet)) - feeBefore).toBe(FEE);
    expect(await balanceOf(usdc, address)).toBe(0n);
  });

  it('reuses the deployed forwarder on the next sweep', async () => {
    const wallet = freshAddress();
    const key = id('player-reuse');
    const address = await predict(wallet, key);
    await mined(usdc.getFunction('mint')(address, 3_000_000n));
    await sweep(wallet, key, usdcAddress);
    const code = await provider.getCode(address);

    await mined(usdc.getFunction('mint')(address, 4_000_000n));
    const events = factoryEvents(await sweep(wallet, key, usdcAddress));
    expect(events.map((e) => e.name)).toEqual(['Swept']);
    expect(events[0]!.args.forwarder).toBe(address);
    expect(await provider.getCode(address)).toBe(code);
    expect(await balanceOf(usdc, wallet)).toBe(2_000_000n + 3_000_000n);
  });

  it('moves nothing while the balance does not exceed the fee', async () => {
    const wallet = freshAddress();
    const key = id('player-dust');
    const address = await predict(wallet, key);
    const feeBefore = await balanceOf(usdc, feeWallet);
    await mined(usdc.getFunction('mint')(address, FEE - 1n));
    expect(factoryEvents(await sweep(wallet, key, usdcAddress)).map((e) => e.name)).toEqual([
      'ForwarderDeployed',
    ]);
    await mined(usdc.getFunction('mint')(address, 1n)); // now exactly the fee
    expect(factoryEvents(await sweep(wallet, key, usdcAddress))).toEqual([]);
    expect(await balanceOf(usdc, address)).toBe(FEE);
    expect(await balanceOf(usdc, wallet)).toBe(0n);
    expect(await balanceOf(usdc, feeWallet)).toBe(feeBefore);
  });

  it('gives different players, and different settlement wallets, different addresses', async () => {
    const wallet = freshAddress();
    const a = await predict(wallet, id('player-a'));
    const b = await predict(wallet, id('player-b'));
    const aElsewhere = await predict(freshAddress(), id('player-a'));
    expect(new Set([a, b, aElsewhere]).size).toBe(3);
    expect(await predict(wallet, id('player-a'))).toBe(a);
  });

  it('sweeps a USDT-like token and a fee-less token', async () => {
    const usdt = await deployContract(service, 'TetherToken', ['Tether USD', 'USDT', 6]);
    const wallet = freshAddress();
    const key = id('player-usdt');
    const address = await predict(wallet, key);
    await mined(usdt.contract.getFunction('mint')(address, 9n));
    const events = factoryEvents(await sweep(wallet, key, usdt.address));
    // No fee configured for this token: everything goes to the settlement wallet.
    expect(events.at(-1)!.args.amount).toBe(9n);
    expect(events.at(-1)!.args.fee).toBe(0n);
    expect(await balanceOf(usdt.contract, wallet)).toBe(9n);
  });

  it('lets only the owner, a sweeper or the settlement wallet sweep, and only the owner set fees', async () => {
    const stranger = await fundedWallet(provider);
    const merchant = await fundedWallet(provider);
    const key = id('player-acl');
    const address = await predict(merchant.address, key);
    await mined(usdc.getFunction('mint')(address, 2_000_000n));
    const asStranger = factory.connect(stranger) as Contract;
    await expectCustomError(
      asStranger.getFunction('sweep').staticCall(merchant.address, key, usdcAddress),
      'NotAllowedToSweep',
      ['ForwarderFactory'],
    );
    await expectCustomError(
      asStranger.getFunction('setFee').staticCall(usdcAddress, 0n),
      'OwnableUnauthorizedAccount',
      ['ForwarderFactory'],
    );
    // The merchant can always recover its deposits, even without the service.
    await sweep(merchant.address, key, usdcAddress, merchant);
    expect(await balanceOf(usdc, merchant.address)).toBe(1_000_000n);

    await mined(factory.getFunction('setSweeper')(stranger.address, true));
    await mined(usdc.getFunction('mint')(address, 3_000_000n));
    await sweep(merchant.address, key, usdcAddress, stranger);
    expect(await balanceOf(usdc, merchant.address)).toBe(3_000_000n);
  });

  it('refuses a sweep called on the forwarder directly', async () => {
    const wallet = freshAddress();
    const key = id('player-direct');
    const address = await predict(wallet, key);
    await mined(factory.getFunction('deploy')(wallet, key));
    await mined(usdc.getFunction('mint')(address, 10n));
    const forwarder = contractAt('DepositForwarder', address, service);
    await expectCustomError(
      forwarder.getFunction('sweep').staticCall(usdcAddress, 10n, 0n, service.address),
      'OnlyFactory',
      ['DepositForwarder'],
    );
    expect(await balanceOf(usdc, address)).toBe(10n);
  });
  it('sweeps many forwarders in one transaction, a fee per deposit, and goes on past one that fails', async () => {
    const usdt = await deployContract(service, 'TetherToken', ['Tether USD', 'USDT', 6]);
    await mined(factory.getFunction('setFee')(usdt.address, 100n));
    const wallet = freshAddress();
    const [a, b, c] = [id('many-a'), id('many-b'), id('many-c')];
    const [addrA, addrB, addrC] = await Promise.all([
      predict(wallet, a),
      predict(wallet, b),
      predict(wallet, c),
    ]);
    await mined(usdc.getFunction('mint')(addrA, 5_000_000n)); // three deposits of which the fee is 3 USDC
    await mined(usdt.contract.getFunction('mint')(addrB, 1_000n));
    await mined(usdt.contract.getFunction('mint')(addrC, 1_000n));
    await mined(usdt.contract.getFunction('addBlackList')(addrC));
    const receipt = await mined(
      factory.getFunction('sweepMany')([
        [wallet, a, usdcAddress, 3n, 5_000_000n, id('sweep-1')],
        [wallet, c, usdt.address, 1n, 1_000n, id('sweep-1')],
        [wallet, b, usdt.address, 2n, 1_000n, id('sweep-1')],
      ]),
    );
    const events = factoryEvents(receipt);
    expect(events.filter((e) => e.name === 'ForwarderDeployed').map((e) => e.args.forwarder)).toEqual([
      addrA,
      addrC,
      addrB,
    ]);
    const swept = events
      .filter((e) => e.name === 'Swept')
      .map((e) => [e.args.forwarder, e.args.amount, e.args.fee]);
    expect(swept).toEqual([
      [addrA, 2_000_000n, 3_000_000n],
      [addrB, 800n, 200n],
    ]);
    const failed = events.find((e) => e.name === 'SweepFailed')!;
    expect(failed.args.forwarder).toBe(addrC);
    expect(usdt.contract.interface.parseError(failed.args.reason)?.name).toBe('Blacklisted');
    expect(await balanceOf(usdc, wallet)).toBe(2_000_000n);
    expect(await balanceOf(usdt.contract, wallet)).toBe(800n);
    expect(await balanceOf(usdt.contract, addrC)).toBe(1_000n);
  });

  it('moves exactly the amount of each item: a deposit that arrived after the sweep was decided stays', async () => {
    const wallet = freshAddress();
    const key = id('exact-a');
    const address = await predict(wallet, key);
    const feesBefore = await balanceOf(usdc, feeWallet);
    await mined(usdc.getFunction('mint')(address, 5_000_000n)); // one deposit, decided
    await mined(usdc.getFunction('mint')(address, 7_000_000n)); // arrived meanwhile
    await mined(
      factory.getFunction('sweepMany')([[wallet, key, usdcAddress, 1n, 5_000_000n, id('exact-1')]]),
    );
    expect(await balanceOf(usdc, wallet)).toBe(4_000_000n);
    expect(await balanceOf(usdc, address)).toBe(7_000_000n);
    await mined(
      factory.getFunction('sweepMany')([[wallet, key, usdcAddress, 1n, 7_000_000n, id('exact-2')]]),
    );
    expect(await balanceOf(usdc, wallet)).toBe(10_000_000n);
    expect(await balanceOf(usdc, address)).toBe(0n);
    expect((await balanceOf(usdc, feeWallet)) - feesBefore).toBe(2n * FEE);
  });

  it('settles an item once: the same sweep sent again moves nothing, also when new deposits are there', async () => {
    const wallet = freshAddress();
    const key = id('replay-a');
    const address = await predict(wallet, key);
    await mined(usdc.getFunction('mint')(address, 5_000_000n));
    const item = [wallet, key, usdcAddress, 1n, 5_000_000n, id('replay-1')];
    await mined(factory.getFunction('sweepMany')([item]));
    await mined(usdc.getFunction('mint')(address, 5_000_000n));
    const again = factoryEvents(await mined(factory.getFunction('sweepMany')([item])));
    expect(again.map((e) => e.name)).toEqual(['SweepSkipped']);
    expect(await balanceOf(usdc, wallet)).toBe(4_000_000n);
    expect(await balanceOf(usdc, address)).toBe(5_000_000n);
  });

  it('fails an item decided for more than the forwarder holds, moving nothing of it', async () => {
    const wallet = freshAddress();
    const key = id('short-a');
    const address = await predict(wallet, key);
    await mined(usdc.getFunction('mint')(address, 2_000_000n));
    const events = factoryEvents(
      await mined(
        factory.getFunction('sweepMany')([[wallet, key, usdcAddress, 1n, 3_000_000n, id('short-1')]]),
      ),
    );
    const failed = events.find((e) => e.name === 'SweepFailed')!;
    expect(
      contractAt('DepositForwarder', address, provider).interface.parseError(failed.args.reason)?.name,
    ).toBe('InsufficientBalance');
    expect(await balanceOf(usdc, address)).toBe(2_000_000n);
  });

  it('lets only the owner or a sweeper sweep many', async () => {
    const merchant = await fundedWallet(provider);
    await expectCustomError(
      (factory.connect(merchant) as Contract)
        .getFunction('sweepMany')
        .staticCall([[merchant.address, id('x'), usdcAddress, 1n, 1n, id('sweep-x')]]),
      'NotAllowedToSweep',
      ['ForwarderFactory'],
    );
  });

  it('sweeps a token whose transfer returns false although it moved the tokens (USDT on Tron)', async () => {
    const usdt = await deployContract(service, 'TetherToken', ['Tether USD', 'USDT', 6]);
    await mined(usdt.contract.getFunction('setTransferReturnsFalse')(true));
    // The quirk is real: a caller that trusts the return value (OpenZeppelin's SafeERC20) would refuse it.
    const holder = await fundedWallet(provider);
    await mined(usdt.contract.getFunction('mint')(holder.address, 10n));
    const raw = await provider.call({
      from: holder.address,
      to: usdt.address,
      data: usdt.contract.interface.encodeFunctionData('transfer', [service.address, 1n]),
    });
    expect(BigInt(raw)).toBe(0n);
    const wallet = freshAddress();
    const key = id('player-tron-usdt');
    await mined(usdt.contract.getFunction('mint')(await predict(wallet, key), 7n));
    const events = factoryEvents(await sweep(wallet, key, usdt.address));
    expect(events.at(-1)!.name).toBe('Swept');
    expect(await balanceOf(usdt.contract, wallet)).toBe(7n);
  });
});
