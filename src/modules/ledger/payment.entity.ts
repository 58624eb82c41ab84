import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../db/timestamps.ts';

/** What kind of on-chain transfer a ledger row records. */
export const PAYMENT_KINDS = [
  /** A payment router `Payment` event (deposit sessions). */
  'router_payment',
  /** An ERC-20/TRC-20 `Transfer` (standing deposit addresses). */
  'transfer',
  /** Recorded before the ledger existed: `token` holds the symbol, the address was never stored. */
  'legacy',
] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

/**
 * The payments ledger: one row per on-chain transfer the service recognised, unique on (network,
 * transaction, log index). Whatever the transfer pays (a session, later a standing-address deposit)
 * points at the row through a unique column of its own, so the database itself refuses a second
 * claim on one transfer. A router payment nothing claims (an `order_ref` of no session, a wrong
 * amount, a late payment) stays here unclaimed: operators list it (`unmatchedPayments`) and attach it
 * to a session or mark it refunded (src/modules/stray). Rows of blocks that leave the canonical chain
 * are deleted by the follower's reorg handling, after their claims were released.
 */
export const PaymentSchema = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  uniques: [{ properties: ['network', 'txHash', 'logIndex'] }],
  indexes: [{ properties: ['network', 'blockNumber'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    network: p.string().length(32),
    /** Lowercase `0x` hash (Tron: the transaction id with `0x`). */
    txHash: p.string().length(66),
    logIndex: p.integer(),
    blockNumber: p.bigint('number'),
    blockHash: p.string().length(66),
    kind: p.enum(PAYMENT_KINDS),
    /** Token contract, lowercase `0x` form. */
    token: p.string().length(42),
    payer: p.string().length(42),
    recipient: p.string().length(42),
    /** Base units, exact. */
    amountRaw: p.decimal('string').precision(78).scale(0),
    /** The router event's `orderRef` (router payments only). */
    orderRef: p.string().length(66).nullable().index(),
    createdAt: createdAt(),
  },
});
export class Payment extends PaymentSchema.class {}
PaymentSchema.setClass(Payment);
