import { keccak256, recoverAddress, type Signature, toUtf8Bytes, Wallet } from 'ethers';
import { expect, it } from 'vitest';
import { normalizeSignatureV } from '../../src/chains/payout-typed-data.ts';
import { signerOf } from '../../src/modules/payout/payout.signer-keys.ts';

/**
 * The payout signer check (src/modules/payout/payout.signer-keys.ts) answers what `ecrecover` answers
 * — the recovered address — whether the wallet's key is already known (checked against it) or not
 * (recovered): the right signature, the other `v`, another signer, another message.
 */

const digest = (i: number) => keccak256(toUtf8Bytes(`order ${i}`));
const sign = (w: { signingKey: { sign(d: string): Signature } }, d: string) =>
  normalizeSignatureV(w.signingKey.sign(d).serialized);
const flipV = (sig: string) => `${sig.slice(0, -2)}${sig.endsWith('1b') ? '1c' : '1b'}`;

it('answers the recovered signer for every kind of signature, before and after the wallet’s key is known', () => {
  const payer = Wallet.createRandom();
  const stranger = Wallet.createRandom();
  for (let i = 0; i < 12; i++) {
    const d = digest(i);
    const cases = [sign(payer, d), flipV(sign(payer, d)), sign(stranger, d), sign(payer, digest(i + 100))];
    for (const sig of cases) expect(signerOf(d, sig, payer.address)).toBe(recoverAddress(d, sig));
  }
  // Its own signatures recover to the wallet; the others never do.
  expect(signerOf(digest(1), sign(payer, digest(1)), payer.address)).toBe(payer.address);
  expect(signerOf(digest(1), flipV(sign(payer, digest(1))), payer.address)).not.toBe(payer.address);
  expect(signerOf(digest(1), sign(stranger, digest(1)), payer.address)).toBe(stranger.address);
});

it('refuses a signature that recovers to nothing', () => {
  const payer = Wallet.createRandom();
  signerOf(digest(0), sign(payer, digest(0)), payer.address);
  const zeroR = `0x${'00'.repeat(32)}${sign(payer, digest(1)).slice(66)}`;
  expect(() => signerOf(digest(1), zeroR, payer.address)).toThrow();
});

it('answers what ethers’ recovery answers on random and edge signatures, and throws where it throws', () => {
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const payer = Wallet.createRandom();
  const hex32 = (x: bigint) => x.toString(16).padStart(64, '0');
  const outcome = (f: () => string) => {
    try {
      return f();
    } catch {
      return 'throws';
    }
  };
  const d = digest(7);
  const good = sign(payer, d);
  const s = BigInt(`0x${good.slice(66, 130)}`);
  const cases = [
    good,
    `0x${hex32(1n)}${good.slice(66)}`,
    `0x${hex32(5n)}${good.slice(66)}`, // no point has x = 5
    `0x${hex32(N)}${good.slice(66)}`,
    `0x${hex32(N - 1n)}${good.slice(66)}`,
    `0x${good.slice(2, 66)}${hex32(1n)}1b`,
    `0x${good.slice(2, 66)}${hex32(N)}1b`,
    `0x${good.slice(2, 66)}${hex32(N - s)}${good.endsWith('1b') ? '1c' : '1b'}`, // the malleated twin
  ];
  for (let i = 0; i < 20; i++) cases.push(`0x${keccak256(toUtf8Bytes(`r${i}`)).slice(2)}${good.slice(66)}`);
  for (const sig of cases)
    expect(
      outcome(() => signerOf(d, sig, payer.address)),
      sig,
    ).toBe(outcome(() => recoverAddress(d, sig)));
  for (const v of ['00', '01', '1d', 'ff'])
    expect(() => signerOf(d, `${good.slice(0, -2)}${v}`, payer.address)).toThrow();
});
