/**
 * Exact token amounts. Amounts travel as decimal strings at the edges and as bigint base units
 * everywhere else; no floating point is ever involved (D3).
 */

const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;

export class AmountError extends Error {}

/** True when `value` has the shape D3 accepts: digits, optional fraction, no sign or exponent. */
export function isDecimalString(value: string): boolean {
  return DECIMAL.test(value);
}

/**
 * Parses a whole-unit decimal string into base units.
 * @throws AmountError when the shape is wrong or it has more fractional digits than `decimals`.
 */
export function parseUnits(value: string, decimals: number): bigint {
  if (!DECIMAL.test(value)) throw new AmountError(`"${value}" is not a decimal number`);
  const [whole = '0', fraction = ''] = value.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > decimals) {
    throw new AmountError(`"${value}" has more than ${decimals} fractional digits`);
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(trimmed.padEnd(decimals, '0') || '0');
}

/** Formats base units as the canonical decimal: no trailing fractional zeros ("125.5", "100"). */
export function formatUnits(raw: bigint, decimals: number): string {
  const negative = raw < 0n;
  const abs = negative ? -raw : raw;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const fraction = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Compares two decimal strings exactly (-1, 0, 1), whatever their number of fractional digits. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  const x = parseUnits(a, scale);
  const y = parseUnits(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

function fractionDigits(value: string): number {
  const dot = value.indexOf('.');
  return dot < 0 ? 0 : value.length - dot - 1;
}
