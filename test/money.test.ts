import { describe, expect, it } from 'vitest';
import { AmountError, compareDecimal, formatUnits, parseUnits } from '../src/money.ts';

describe('money', () => {
  it('parses whole-unit decimals into base units exactly', () => {
    expect(parseUnits('125.50', 6)).toBe(125_500_000n);
    expect(parseUnits('100', 18)).toBe(100n * 10n ** 18n);
    expect(parseUnits('0.000001', 6)).toBe(1n);
    expect(parseUnits('1.10', 1)).toBe(11n);
  });

  it('refuses shapes D3 rejects and excess precision', () => {
    for (const bad of ['', '-1', '1e3', ' 1', '1.', '.5', '0x10', '1,5']) {
      expect(() => parseUnits(bad, 6), bad).toThrow(AmountError);
    }
    expect(() => parseUnits('0.0000001', 6)).toThrow(/fractional/);
  });

  it('formats canonically without trailing zeros', () => {
    expect(formatUnits(125_500_000n, 6)).toBe('125.5');
    expect(formatUnits(100_000_000n, 6)).toBe('100');
    expect(formatUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatUnits(0n, 6)).toBe('0');
  });

  it('compares decimals of any precision exactly', () => {
    expect(compareDecimal('999.999999', '1000')).toBe(-1);
    expect(compareDecimal('1000.0', '1000')).toBe(0);
    expect(compareDecimal('0.30000000000000000001', '0.3')).toBe(1);
  });
});
