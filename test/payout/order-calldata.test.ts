import { randomBytes } from 'node:crypto';
import { getAddress, hexlify, Interface, TypedDataEncoder } from 'ethers';
import { expect, it } from 'vitest';
import { buildBatchTypedData, typedDataDigest, typesForEthers } from '../../src/chains/payout-typed-data.ts';
import { nonceUsedCalldata } from '../../src/modules/payout/payout.chain.ts';
import { executeCalldata, orderTypedData, PAYOUT_ROUTER } from '../../src/modules/payout/payout.order.ts';

/**
 * The order's bytes as the authorization writes them (src/modules/payout/payout.order.ts,
 * src/chains/payout-typed-data.ts): the router call written out by hand and the digest from cached
 * encoders are exactly what ethers' ABI coder and `TypedDataEncoder.hash` give, for any order, on
 * several domains in turn (a cached domain separator never answers for another domain).
 */

const address = () => getAddress(hexlify(randomBytes(20)));
const uint = (bytes: number) => BigInt(hexlify(randomBytes(bytes))).toString();

it('writes the execute calldata ethers would, for any order and signature', () => {
  for (let i = 0; i < 50; i++) {
    const order = {
      chainId: 1 + (i % 3),
      router: address(),
      tokenAddress: i % 2 ? address().toLowerCase() : address(),
      payer: address(),
      recipientHex: address(),
      amountRaw: i === 0 ? ((1n << 256n) - 1n).toString() : uint(1 + (i % 32)),
      nonce: i === 1 ? '0' : uint(1 + (i % 32)),
      deadline: 1_700_000_000 + i,
    };
    const signature = hexlify(randomBytes(65));
    const m = orderTypedData(order).message;
    const expected = PAYOUT_ROUTER.encodeFunctionData('execute', [
      [m.token, m.merchant, m.recipient, m.amount, m.nonce, m.deadline],
      signature,
    ]);
    expect(executeCalldata(order, signature)).toBe(expected);
    expect(executeCalldata(order, signature.toUpperCase().replace('0X', '0x'))).toBe(expected);
  }
});

it('hashes single and batch orders as TypedDataEncoder.hash does, across domains', () => {
  const routers = [address(), address(), address()];
  for (let i = 0; i < 30; i++) {
    const common = {
      chainId: 1 + (i % 2),
      router: routers[i % 3]!,
      token: address(),
      merchant: address(),
      nonce: uint(8),
      deadline: 1_700_000_000 + i,
    };
    const single = orderTypedData({
      chainId: common.chainId,
      router: common.router,
      tokenAddress: common.token,
      payer: common.merchant,
      recipientHex: address(),
      amountRaw: uint(16),
      nonce: common.nonce,
      deadline: common.deadline,
    });
    const batch = buildBatchTypedData({
      ...common,
      items: Array.from({ length: 1 + (i % 4) }, () => ({ recipient: address(), amount: uint(8) })),
    });
    for (const td of [single, batch])
      expect(typedDataDigest(td)).toBe(TypedDataEncoder.hash(td.domain, typesForEthers(td), td.message));
  }
});

it('writes the nonceUsed calldata ethers would, for any signer and nonce', () => {
  const views = new Interface(['function nonceUsed(address merchant, uint256 nonce) view returns (bool)']);
  for (let i = 0; i < 50; i++) {
    const signer = i % 2 ? address() : address().toLowerCase();
    const nonce = i === 0 ? 0n : i === 1 ? 2n ** 256n - 1n : BigInt(uint(1 + (i % 32)));
    expect(nonceUsedCalldata(signer, nonce)).toBe(views.encodeFunctionData('nonceUsed', [signer, nonce]));
  }
  expect(() => nonceUsedCalldata('0x12', 1n)).toThrow();
  expect(() => nonceUsedCalldata(address(), 2n ** 256n)).toThrow();
});
