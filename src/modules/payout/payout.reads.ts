import { LockMode } from '@mikro-orm/core';
import type { Pass } from '../../db/fresh-reads.ts';

/**
 * Find options for payouts read by a pass of chain settlement (src/db/fresh-reads.ts): always the
 * committed row rather than what the identity map remembers from earlier in the transaction (the
 * transitions write with SQL), and on a retry pass locked, so the write that follows cannot lose again.
 */
export const payoutReads = (pass: Pass) =>
  pass.fresh ? { refresh: true, lockMode: LockMode.PESSIMISTIC_WRITE as const } : { refresh: true };
