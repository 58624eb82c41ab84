import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';

describe('newId', () => {
  it('never repeats, across the refills of its random pool', () => {
    // Past two refills of the 256-id pool: a pool slice reused would repeat an id.
    const ids = Array.from({ length: 1_000 }, (_, i) => newId(i % 2 ? 'deposit' : 'webhook'));
    expect(new Set(ids.map((id) => id.slice(id.indexOf('_') + 1))).size).toBe(ids.length);
  });

  it('is the prefix and 128 bits in base64url', () => {
    for (let i = 0; i < 300; i++) expect(newId('deposit')).toMatch(/^dep_[A-Za-z0-9_-]{22}$/);
  });

  it('gives each id bytes of its own, not one id’s bytes shifted', () => {
    const ids = Array.from({ length: 1_000 }, () => newId('webhook'));
    // No two ids share a 16-character piece.
    expect(new Set(ids.map((id) => id.slice(3, 19))).size).toBe(1_000);
  });
});
