/** The retry schedule of D9 and section 8: one place for every delivery timing constant. */

/** Attempts per delivery: the first one plus seven retries. */
export const MAX_ATTEMPTS = 8;
/** Delay after the first failed attempt; each later one doubles. */
export const FIRST_RETRY_DELAY_MS = 30_000;
/** No single delay exceeds an hour. */
export const MAX_RETRY_DELAY_MS = 3_600_000;
/** Per-attempt bound on DNS + connect + request + response (section 6.1 leaves it open; 10 s). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * How long past its timeout an attempt may still be recording its outcome. After `timeout + margin`
 * a `delivering` delivery is considered orphaned (its worker died) and is taken over.
 */
export const LEASE_MARGIN_MS = 15_000;
/** Attempts one claim statement takes (and one run has in flight at most). */
export const BATCH_SIZE = 32;
/**
 * Attempts of one merchant in flight at once, across every run and process (counted from live
 * leases at claim time; concurrent claims can overshoot it by a few). A slow or dead endpoint holds
 * at most these slots; everyone else's deliveries go past it.
 */
export const PER_MERCHANT_IN_FLIGHT = 16;
/** A run waits this long for its slowest receivers, then leaves them to finish on their own. */
export const PATIENCE_MS = 250;
/** A run stops claiming after this long and queues a fresh one for the rest (jobs stay short). */
export const RUN_BUDGET_MS = 2_000;
/**
 * A pending delivery this far past due with nothing running it (its job lost, or its announcement heard
 * by no worker) gets a job added by the sweeper.
 */
export const SWEEP_GRACE_MS = 120_000;

/**
 * Delay before the next attempt after attempt `failed` (1-based) failed, or null when it was the
 * last one: 30 s, 1 m, 2 m, 4 m, 8 m, 16 m, 32 m, each capped at 1 h.
 */
export function retryDelayMs(failed: number): number | null {
  if (failed >= MAX_ATTEMPTS) return null;
  return Math.min(FIRST_RETRY_DELAY_MS * 2 ** (failed - 1), MAX_RETRY_DELAY_MS);
}
