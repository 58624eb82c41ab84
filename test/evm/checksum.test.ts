import { randomBytes } from 'node:crypto';
import { getAddress } from 'ethers';
import { describe, expect, it } from 'vitest';
import { checksumAddress } from '../../src/chains/evm/checksum.ts';

describe('checksumAddress', () => {
  it('gives what ethers getAddress gives, from lowercase or uppercase hex', () => {
    const addresses = [
      `0x${'0'.repeat(40)}`,
      `0x${'f'.repeat(40)}`,
      '0xab00000000000000000000000000000000011301',
      ...Array.from({ length: 2_000 }, () => `0x${randomBytes(20).toString('hex')}`),
    ];
    for (const a of addresses) {
      const expected = getAddress(a);
      expect(checksumAddress(a)).toBe(expected);
      expect(checksumAddress(`0x${a.slice(2).toUpperCase()}`)).toBe(expected);
    }
  });

  it('refuses anything but 0x and 40 hex digits', () => {
    for (const bad of [
      '',
      '0x',
      `0x${'0'.repeat(39)}`,
      `0x${'0'.repeat(41)}`,
      `0x${'g'.repeat(40)}`,
      'ab'.repeat(21),
    ])
      expect(() => checksumAddress(bad)).toThrow('not a 0x address');
  });
});
