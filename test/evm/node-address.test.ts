import { getAddress, Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { nodeAddress } from '../../src/chains/evm/util.ts';

/** Addresses in node answers: checksummed once per address (logs repeat a few contracts), still checked. */
describe('nodeAddress', () => {
  it('answers the checksummed form every time, and still refuses what is not an address', () => {
    const lower = Wallet.createRandom().address.toLowerCase();
    for (let i = 0; i < 3; i++) expect(nodeAddress(lower, 'log.address')).toBe(getAddress(lower));
    // A mixed-case address with a wrong checksum: one letter's case flipped.
    const good = getAddress(`0xa${lower.slice(3)}`);
    const bad = `0x${good[2] === 'a' ? 'A' : 'a'}${good.slice(3)}`;
    expect(() => nodeAddress(bad, 'log.address')).toThrow(/malformed node answer/);
    expect(() => nodeAddress(`${lower}00`, 'log.address')).toThrow(/malformed node answer/);
    expect(() => nodeAddress(42, 'log.address')).toThrow(/malformed node answer/);
  });

  it('stays bounded: thousands of distinct addresses are each answered correctly', () => {
    const many = Array.from({ length: 5_000 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
    for (const a of many) expect(nodeAddress(a, 'tx.to')).toBe(getAddress(a));
    expect(nodeAddress(many[0]!, 'tx.to')).toBe(getAddress(many[0]!));
  });
});
