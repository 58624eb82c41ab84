import { Transaction, Wallet } from 'ethers';
import { expect, it } from 'vitest';
import { keyBytes, signEvmTx } from '../../src/relay/evm-sign.ts';

/**
 * The relay's own transaction signing (src/relay/evm-sign.ts) gives exactly the bytes of ethers'
 * `wallet.signTransaction` for the same fields: EIP-1559 and legacy (EIP-155), zero and large values,
 * short and long calldata, many keys and nonces.
 */

const cases = Array.from({ length: 40 }, (_, i) => ({
  wallet: Wallet.createRandom(),
  chainId: [1, 56, 31337, 728126428, 2 ** 40][i % 5]!,
  nonce: [0, 1, 127, 128, 255, 256, 65_535, 1_000_000][i % 8]!,
  to: Wallet.createRandom().address,
  data: i % 3 === 0 ? '0x' : `0x${'ab'.repeat(i % 6 === 1 ? 1 : 60 + i * 7)}`,
  value: i % 4 === 0 ? 0n : 10n ** BigInt(i),
  gasLimit: BigInt(21_000 + i * 12_345),
  maxFee: i % 7 === 0 && i % 2 === 1 ? 0n : 10n ** 9n * BigInt(i + 1) + 7n,
  priorityFee: i % 2 === 0 ? (10n ** 9n * BigInt(i + 1)) / BigInt((i % 5) + 1) : undefined,
}));

it('signs every case exactly as ethers does, and each recovers to its wallet', async () => {
  for (const c of cases) {
    const ours = signEvmTx(keyBytes(c.wallet.privateKey), c);
    const theirs = await c.wallet.signTransaction({
      chainId: c.chainId,
      nonce: c.nonce,
      to: c.to,
      data: c.data,
      value: c.value,
      gasLimit: c.gasLimit,
      ...(c.priorityFee === undefined
        ? { type: 0, gasPrice: c.maxFee }
        : { type: 2, maxFeePerGas: c.maxFee, maxPriorityFeePerGas: c.priorityFee }),
    });
    expect(ours).toBe(theirs);
    expect(Transaction.from(ours).from).toBe(c.wallet.address);
  }
});
