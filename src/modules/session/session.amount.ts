import { validation } from '../../errors.ts';
import { AmountError, formatUnits, parseUnits } from '../../money.ts';

/** Canonical decimal (D3); with `decimals`, refuses more fractional digits than the token has. */
export function canonicalAmount(value: string, decimals?: number, field = 'amount'): string {
  const digits = decimals ?? (value.includes('.') ? value.length - value.indexOf('.') - 1 : 0);
  try {
    return formatUnits(parseUnits(value, digits), digits);
  } catch (error) {
    if (error instanceof AmountError) throw validation(`${field}: ${error.message.replace(/^"[^"]*" /, '')}`);
    throw error;
  }
}
