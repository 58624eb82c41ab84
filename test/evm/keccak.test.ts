import { randomBytes } from 'node:crypto';
import { hexlify, keccak256 } from 'ethers';
import { expect, it } from 'vitest';
import { keccakBytes, keccakHex } from '../../src/chains/evm/keccak.ts';

it('hashes as ethers does, for every length around the rate (136 bytes) and a transaction’s', () => {
  for (const length of [0, 1, 31, 32, 33, 135, 136, 137, 271, 272, 273, 420, 4096]) {
    const data = randomBytes(length);
    const expected = keccak256(data);
    expect(keccakHex(hexlify(data))).toBe(expected);
    expect(hexlify(keccakBytes(data))).toBe(expected);
  }
});
