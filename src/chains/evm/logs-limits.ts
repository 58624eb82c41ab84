import { AppError } from '../../errors.ts';
import { RpcError, TransportError } from './rpc/errors.ts';

/**
 * Recognising "ask for less" among eth_getLogs failures, and reading the limit a provider states, so
 * the scanner can go straight to a range that works instead of halving its way there.
 */

/** Refusals that mean "ask for less" (geth, erigon, nethermind, besu, Alchemy, Infura, QuickNode...). */
const RANGE_REFUSAL =
  /block range|range (is )?too (large|wide|big)|exceeds? (the )?max|too many (results|logs|blocks)|more than \d[\d,]* (results|logs)|limit exceeded|response size|query timeout|timed? ?out|max results/i;

/** Whether a failed eth_getLogs should be retried over a smaller range. */
export function isTooLarge(error: unknown): boolean {
  if (error instanceof RpcError) return RANGE_REFUSAL.test(error.message);
  // Every endpoint timed out or choked on the answer: most likely the query, not the node.
  const cause = error instanceof AppError ? error.cause : undefined;
  return cause instanceof TransportError && ['timeout', 'invalid_response', 'http'].includes(cause.kind);
}

/** Provider hints: "try with this block range [0x10, 0x2f]" or "max block range 5000". */
export function rangeHint(message: string, from: number): { size?: number; cap?: number } {
  const pair = /\[\s*(0x[0-9a-f]+)\s*,\s*(0x[0-9a-f]+)\s*\]/i.exec(message);
  if (pair) {
    const start = Number(BigInt(pair[1]!));
    const end = Number(BigInt(pair[2]!));
    // A suggested range is the whole hint; the prose around it mentions other numbers.
    return start === from && end >= start ? { size: end - start + 1 } : {};
  }
  const limit =
    /(?:block range|range limit|max(?:imum)? (?:block )?range|limited to(?: a)?)\D{0,20}(\d[\d,]*)/i.exec(
      message,
    );
  if (limit) {
    const n = Number(limit[1]!.replace(/,/g, ''));
    if (Number.isSafeInteger(n) && n > 0) return { size: n, cap: n };
  }
  return {};
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
