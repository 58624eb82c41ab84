import { getBytes, hexlify, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import {
  buildBatchTypedData,
  buildPayoutTypedData,
  normalizeSignatureV,
  recoverTypedDataSigner,
  typesForEthers,
} from '../../src/chains/payout-typed-data.ts';

const ROUTER = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const TOKEN = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const MERCHANT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const RECIPIENT = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';

describe('buildPayoutTypedData', () => {
  it('produces exactly the api.md 2.4 shape', () => {
    const td = buildPayoutTypedData({
      chainId: 31337n,
      router: ROUTER,
      token: TOKEN,
      merchant: MERCHANT,
      recipient: RECIPIENT,
      amount: 125_500_000n,
      nonce: 7n,
      deadline: 1_767_225_600,
    });
    // Round-trip through JSON: what the merchant receives is what we compare.
    expect(JSON.parse(JSON.stringify(td))).toEqual({
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        PayoutOrder: [
          { name: 'token', type: 'address' },
          { name: 'merchant', type: 'address' },
          { name: 'recipient', type: 'address' },
          { name: 'amount', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'PayoutOrder',
      domain: {
        name: 'PayoutRouter',
        version: '1',
        chainId: 31337,
        verifyingContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      },
      message: {
        token: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
        merchant: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
        amount: '125500000',
        nonce: '7',
        deadline: '1767225600',
      },
    });
    expect(typeof td.domain.chainId).toBe('number');
  });

  it('keeps a Tron chain id a JSON number and refuses bad input', () => {
    const base = {
      chainId: 728126428,
      router: ROUTER,
      token: TOKEN,
      merchant: MERCHANT,
      recipient: RECIPIENT,
      amount: '1',
      nonce: 0,
      deadline: 1,
    };
    expect(buildPayoutTypedData(base).domain.chainId).toBe(728126428);
    expect(() => buildPayoutTypedData({ ...base, amount: 0n })).toThrow(/positive/);
    expect(() => buildPayoutTypedData({ ...base, amount: '1.5' })).toThrow(/unsigned integer/);
    expect(() => buildPayoutTypedData({ ...base, amount: -1 })).toThrow();
    expect(() => buildPayoutTypedData({ ...base, nonce: 2n ** 256n })).toThrow(/uint256/);
    expect(() => buildPayoutTypedData({ ...base, chainId: 2n ** 60n })).toThrow(/JSON number/);
    expect(() => buildPayoutTypedData({ ...base, recipient: 'TXYZ' })).toThrow();
  });
});

describe('buildBatchTypedData', () => {
  it('produces exactly the api.md 2.4 batch shape', () => {
    const td = buildBatchTypedData({
      chainId: 56,
      router: ROUTER,
      token: TOKEN,
      merchant: MERCHANT,
      items: [
        { recipient: RECIPIENT, amount: 1n },
        { recipient: MERCHANT, amount: '2000000000000000000' },
      ],
      nonce: '99',
      deadline: 1_767_225_600n,
    });
    expect(JSON.parse(JSON.stringify(td))).toEqual({
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        PayoutBatch: [
          { name: 'token', type: 'address' },
          { name: 'merchant', type: 'address' },
          { name: 'items', type: 'PayoutItem[]' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
        PayoutItem: [
          { name: 'recipient', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
      },
      primaryType: 'PayoutBatch',
      domain: {
        name: 'BatchPayoutRouter',
        version: '1',
        chainId: 56,
        verifyingContract: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      },
      message: {
        token: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
        merchant: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        items: [
          { recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', amount: '1' },
          { recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: '2000000000000000000' },
        ],
        nonce: '99',
        deadline: '1767225600',
      },
    });
    expect(typesForEthers(td)).not.toHaveProperty('EIP712Domain');
  });

  it('refuses an empty batch and names a bad item by index', () => {
    const base = { chainId: 1, router: ROUTER, token: TOKEN, merchant: MERCHANT, nonce: 1, deadline: 1 };
    expect(() => buildBatchTypedData({ ...base, items: [] })).toThrow(/at least one/);
    expect(() =>
      buildBatchTypedData({
        ...base,
        items: [
          { recipient: RECIPIENT, amount: 1 },
          { recipient: RECIPIENT, amount: 0 },
        ],
      }),
    ).toThrow(/items\[1\]/);
  });
});

describe('normalizeSignatureV and recoverTypedDataSigner', () => {
  const wallet = Wallet.createRandom();
  const td = buildPayoutTypedData({
    chainId: 1,
    router: ROUTER,
    token: TOKEN,
    merchant: wallet.address,
    recipient: RECIPIENT,
    amount: 5n,
    nonce: 1n,
    deadline: 2n,
  });

  it('recovers the signer of wallet-style typed data, whatever v form it uses', async () => {
    const signature = await wallet.signTypedData(td.domain, typesForEthers(td), td.message);
    expect(recoverTypedDataSigner(td, signature)).toBe(wallet.address);
    const bytes = getBytes(signature);
    bytes[64] = bytes[64]! - 27;
    const raw = hexlify(bytes);
    expect(normalizeSignatureV(raw)).toBe(signature);
    expect(normalizeSignatureV(signature)).toBe(signature);
    expect(normalizeSignatureV(signature.slice(2).toUpperCase())).toBe(signature);
    expect(recoverTypedDataSigner(td, raw)).toBe(wallet.address);
    // Any change to the message changes the signer.
    const other = { ...td, message: { ...td.message, amount: '6' } };
    expect(recoverTypedDataSigner(other, signature)).not.toBe(wallet.address);
  });

  it('rejects malformed signatures', async () => {
    const signature = await wallet.signTypedData(td.domain, typesForEthers(td), td.message);
    expect(() => normalizeSignatureV(signature.slice(0, -2))).toThrow(/65 bytes/);
    expect(() => normalizeSignatureV(`${signature.slice(0, -2)}02`)).toThrow(/v must be/);
    expect(() => normalizeSignatureV(`${signature.slice(0, -2)}25`)).toThrow(/v must be/);
    expect(() => normalizeSignatureV(`${signature.slice(0, 66)}${'0'.repeat(64)}1b`)).toThrow(
      /s out of range/,
    );
    expect(() => recoverTypedDataSigner(td, '0x1234')).toThrow();
  });
});
