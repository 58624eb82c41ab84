import type { Contract, Wallet } from 'ethers';
import { beforeAll, expect, it } from 'vitest';
import { deployContract } from '../../src/chains/contracts.ts';
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

/**
 * The Permit2 SignatureTransfer port that bench/gas.ts measures a payout against must really work
 * like Permit2, or the comparison means nothing: a signed permit transfers once, and a reused nonce,
 * a passed deadline, an amount above the permit or another signer are refused.
 */

let chainId: number;
let owner: Wallet;
let relayer: Wallet;
let token: Contract;
let permit2: Contract;
let permit2Address: string;

beforeAll(async () => {
  const chain = await testChain();
  chainId = chain.chainId;
  const deployer = await fundedWallet(chain.provider);
  owner = await fundedWallet(chain.provider);
  relayer = await fundedWallet(chain.provider);
  token = (await deployContract(deployer, 'TestToken', ['USD Coin', 'USDC', 6])).contract;
  const deployed = await deployContract(deployer, 'Permit2SignatureTransfer');
  permit2 = deployed.contract.connect(relayer) as Contract;
  permit2Address = deployed.address;
  await mined(token.getFunction('mint')(owner.address, 10_000_000n));
  await mined((token.connect(owner) as Contract).getFunction('approve')(permit2Address, 2n ** 255n));
});

async function permit(nonce: bigint, amount: bigint, deadline: bigint, signer: Wallet = owner) {
  const value = { permitted: { token: await token.getAddress(), amount }, nonce, deadline };
  const signature = await signer.signTypedData(
    { name: 'Permit2', chainId, verifyingContract: permit2Address },
    {
      PermitTransferFrom: [
        { name: 'permitted', type: 'TokenPermissions' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
      TokenPermissions: [
        { name: 'token', type: 'address' },
        { name: 'amount', type: 'uint256' },
      ],
    },
    { ...value, spender: relayer.address },
  );
  return { value, signature };
}

const transfer = (p: Awaited<ReturnType<typeof permit>>, to: string, amount: bigint) =>
  permit2.getFunction('permitTransferFrom')(
    p.value,
    { to, requestedAmount: amount },
    owner.address,
    p.signature,
  );

it('transfers once per signed permit and refuses a reused nonce, a late, an oversized or a foreign one', async () => {
  const deadline = BigInt((await chainNow(owner.provider as never)) + 600);
  const to = freshAddress();
  const p = await permit(7n, 1_000_000n, deadline);
  await mined(transfer(p, to, 1_000_000n));
  expect(await balanceOf(token, to)).toBe(1_000_000n);
  await expectCustomError(transfer(p, to, 1_000_000n), 'InvalidNonce', ['Permit2SignatureTransfer']);
  await expectCustomError(transfer(await permit(8n, 1_000_000n, deadline), to, 2_000_000n), 'InvalidAmount', [
    'Permit2SignatureTransfer',
  ]);
  await expectCustomError(
    transfer(await permit(9n, 1_000_000n, deadline, relayer), to, 1_000_000n),
    'InvalidSigner',
    ['Permit2SignatureTransfer'],
  );
  const soon = await permit(10n, 1_000_000n, BigInt((await chainNow(owner.provider as never)) + 5));
  await advanceTime(owner.provider as never, 60);
  await expectCustomError(transfer(soon, to, 1_000_000n), 'SignatureExpired', ['Permit2SignatureTransfer']);
  expect(await balanceOf(token, to)).toBe(1_000_000n);
});
