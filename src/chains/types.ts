/**
 * The few shapes every chain adapter (EVM, Tron) shares, so daemons and endpoints can follow a chain
 * or check a transaction without knowing which kind of network it is.
 */

/** Minimal structured logger; chain code only reports degraded endpoints and fallbacks. */
export interface ChainLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  debug?(message: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything, for callers (and tests) that do not care. */
export const silentLogger: ChainLogger = { warn: () => {} };

/** Section 3.6: where a broadcast transaction stands. */
export type TxStatus = 'pending' | 'confirmed' | 'failed' | 'not_found';

/** What a status check learned about a transaction. */
export interface TxState {
  status: TxStatus;
  /** Block that included it (confirmed or failed). */
  blockNumber?: number;
  /** Blocks on top of and including the inclusion block; 0 unless mined. */
  confirmations: number;
}

/** The part of a block header a chain follower needs to detect reorganisations. */
export interface BlockHeader {
  number: number;
  hash: string;
  parentHash: string;
  /** Seconds since the Unix epoch, the chain's own clock. */
  timestamp: number;
}
