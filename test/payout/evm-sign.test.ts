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

it('signs exactly as ethers does when r or s starts with a zero byte (RLP drops it)', async () => {
  const wallet = new Wallet(`0x${'42'.repeat(32)}`);
  const seen = { r: 0, s: 0 };
  for (let nonce = 0; nonce < 5_000 && (seen.r < 2 || seen.s < 2); nonce++) {
    const tx = {
      chainId: 31337,
      nonce,
      to: wallet.address,
      data: '0x',
      value: 0n,
      gasLimit: 21_000n,
      maxFee: 10n ** 9n,
      priorityFee: nonce % 2 ? 10n ** 8n : undefined,
    };
    const ours = signEvmTx(keyBytes(wallet.privateKey), tx);
    const { signature } = Transaction.from(ours);
    const r = signature!.r.startsWith('0x00');
    const s = signature!.s.startsWith('0x00');
    if (!r && !s) continue;
    if (r) seen.r++;
    if (s) seen.s++;
    const theirs = await wallet.signTransaction({
      chainId: tx.chainId,
      nonce,
      to: tx.to,
      data: tx.data,
      value: tx.value,
      gasLimit: tx.gasLimit,
      ...(tx.priorityFee === undefined
        ? { type: 0, gasPrice: tx.maxFee }
        : { type: 2, maxFeePerGas: tx.maxFee, maxPriorityFeePerGas: tx.priorityFee }),
    });
    expect(ours).toBe(theirs);
  }
  expect(seen.r).toBeGreaterThanOrEqual(2);
  expect(seen.s).toBeGreaterThanOrEqual(2);
});
