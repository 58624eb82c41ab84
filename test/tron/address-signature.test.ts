/** Address spellings with known vectors, and signatures over a txID made by tronweb's own signing. */
import { Wallet } from 'ethers';
import { TronWeb, utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import {
  evmToTron,
  isTronAddress,
  recoverTxSigner,
  toEvmAddress,
  toTronAddress,
  toTronHex,
  tronToEvm,
  verifyTxSignature,
} from '../../src/chains/tron/index.ts';
import { AppError } from '../../src/errors.ts';

/** [base58, 0x] pairs; the second is mainnet USDT's contract. */
const VECTORS: [string, string][] = [
  ['T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', '0x0000000000000000000000000000000000000000'],
  ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', '0xa614f803B6FD780986A42c78Ec9c7f77e6DeD13C'],
];

const expectValidation = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation');
    return;
  }
  throw new Error('expected a validation error');
};

describe('Tron addresses', () => {
  it.each(VECTORS)('%s ⇄ %s', (tron, evm) => {
    expect(tronToEvm(tron)).toBe(evm);
    expect(evmToTron(evm)).toBe(tron);
    expect(evmToTron(evm.toLowerCase())).toBe(tron);
    // tronweb agrees.
    expect(utils.address.toHex(tron)).toBe(`41${evm.slice(2).toLowerCase()}`);
    expect(TronWeb.address.fromHex(`41${evm.slice(2)}`)).toBe(tron);
    for (const spelling of [tron, evm, `41${evm.slice(2).toLowerCase()}`]) {
      expect(toEvmAddress(spelling)).toBe(evm);
      expect(toTronAddress(spelling)).toBe(tron);
      expect(toTronHex(spelling)).toBe(`41${evm.slice(2).toLowerCase()}`);
    }
  });

  it('matches tronweb for random keys', () => {
    for (let i = 0; i < 5; i++) {
      const w = Wallet.createRandom();
      expect(evmToTron(w.address)).toBe(TronWeb.address.fromPrivateKey(w.privateKey.slice(2)));
    }
  });

  it('refuses bad checksums and shapes as validation errors', () => {
    expect(isTronAddress('T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwc')).toBe(false);
    expectValidation(() => tronToEvm('T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwc')); // last char changed
    expectValidation(() => tronToEvm('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6'));
    expectValidation(() => tronToEvm('0xa614f803B6FD780986A42c78Ec9c7f77e6DeD13C'));
    expectValidation(() => evmToTron('0xA614f803B6FD780986A42c78Ec9c7f77e6DeD13C')); // EIP-55 broken
    expectValidation(() => evmToTron('0x1234'));
    expectValidation(() => toEvmAddress('hello'));
    // Base58 of a 0x00-prefixed payload with a valid checksum is not a Tron address.
    const wrongPrefix = utils.crypto.getBase58CheckAddress(Array.from(new Uint8Array(21)));
    expectValidation(() => tronToEvm(wrongPrefix));
  });
});

describe('signatures over a txID', () => {
  const txId = 'fea7c465088ee269864c2cfeb574df72851f65b9b2c1605d7ae29c91b7f7256d';

  it('recovers the signer of a tronweb signature, with or without 0x, v as 27/28 or 0/1', () => {
    const w = Wallet.createRandom();
    const signed = utils.crypto.signTransaction(w.privateKey.slice(2), { txID: txId }) as {
      signature: string[];
    };
    const sig = signed.signature[0]!;
    expect(recoverTxSigner(txId, sig)).toBe(w.address);
    expect(recoverTxSigner(`0x${txId}`, `0x${sig}`)).toBe(w.address);
    const v = Number.parseInt(sig.slice(128), 16);
    const zeroBased = sig.slice(0, 128) + (v - 27).toString(16).padStart(2, '0');
    expect(recoverTxSigner(txId, zeroBased)).toBe(w.address);
    expect(verifyTxSignature(txId, sig, w.address)).toBe(true);
    expect(verifyTxSignature(txId, sig, Wallet.createRandom().address)).toBe(false);
    // Signed over another id: recovers to someone else.
    expect(verifyTxSignature(txId.replace(/^f/, 'e'), sig, w.address)).toBe(false);
  });

  it('refuses malformed signatures and ids', () => {
    expectValidation(() => recoverTxSigner(txId, 'abcd'));
    expectValidation(() => recoverTxSigner(txId, 'zz'.repeat(65)));
    expectValidation(() => recoverTxSigner('abcd', '00'.repeat(65)));
    expectValidation(() => recoverTxSigner(txId, `${'00'.repeat(64)}1b`));
  });
});
