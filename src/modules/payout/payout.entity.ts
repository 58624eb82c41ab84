import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../db/timestamps.ts';
import { Merchant } from '../merchant/merchant.entity.ts';

/** Payout status (section 3.4). */
export const PAYOUT_STATUSES = ['pending', 'authorized', 'submitted', 'completed', 'failed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Why a payout failed (D14); merchants branch on it. */
export const FAILURE_REASONS = [
  'expired',
  'invalid_signature',
  'nonce_used',
  'insufficient_allowance',
  'insufficient_funds',
  'transfer_failed',
  'reverted',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/**
 * A payout: one signed order that moves `amount` of a token from the merchant's payout wallet to a
 * recipient through a router. Everything the order says is pinned here at creation (payout wallet,
 * router, chain, nonce, deadline), so the typed data can be rebuilt byte for byte and a changed
 * configuration never re-routes it. A batch item is a payout with `batch`/`batchIndex` set; items and
 * single payouts share the (merchant, external_id) namespace. Every change goes through
 * `transitionPayouts` (payout.transition.ts), guarded by `version`.
 */
export const PayoutSchema = defineEntity({
  name: 'Payout',
  tableName: 'payouts',
  uniques: [
    // Idempotency: one payout per merchant reference (NULLs never collide).
    { properties: ['merchant', 'externalId'] },
    // A router nonce orders at most one payout (one per item index of a batch): money moves at most
    // once by construction.
    { properties: ['network', 'router', 'payer', 'nonce', 'orderIndex'] },
  ],
  indexes: [{ properties: ['network', 'status'] }, { properties: ['merchant', 'createdAt'] }],
  properties: {
    id: p.string().length(40).primary(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    externalId: p.string().length(128).nullable(),
    /** The batch this payout is an item of (issue #9), and its index in `message.items`. */
    batchId: p.string().length(40).nullable().index(),
    batchIndex: p.integer().nullable(),
    /** Position in the signed order: 0 for a single payout, the item index in a batch. */
    orderIndex: p.integer().default(0),
    network: p.string().length(32),
    token: p.string().length(16),
    /** Token contract, checksummed `0x` (on `tron` the 20-byte form). */
    tokenAddress: p.string().length(42),
    /** Canonical decimal, whole units. */
    amount: p.string().length(100),
    /** Base units, exact. */
    amountRaw: p.decimal('string').precision(78).scale(0),
    /** As the merchant gave it, canonical: checksummed `0x`, or `T…` on `tron`. */
    recipient: p.string().length(64),
    /** 20-byte `0x` form of the recipient (what the order carries). */
    recipientHex: p.string().length(42),
    callbackUrl: p.string().length(2048).nullable(),
    /** The payout wallet the order is signed by (`message.merchant`), checksummed `0x`. */
    payer: p.string().length(42),
    /** The router allowed to execute the order (`domain.verifyingContract`). */
    router: p.string().length(42),
    chainId: p.bigint('number'),
    /** Router nonce, allocated by the service and never reused (D14). */
    nonce: p.decimal('string').precision(78).scale(0),
    /** Unix seconds; the router refuses the order after it. */
    deadline: p.bigint('number'),
    status: p.enum(PAYOUT_STATUSES).default('pending'),
    failureReason: p.enum(FAILURE_REASONS).nullable(),
    /** The authorizing signature, normalised (`v` 27/28, low `s`): the one relayed. */
    signature: p.string().length(132).nullable(),
    /** The relay transaction that is mined, else the latest broadcast one. */
    txHash: p.string().length(66).nullable(),
    /** Where the router's `PayoutExecuted` for this order was seen (cleared when its block leaves the chain). */
    executedBlock: p.bigint('number').nullable(),
    executedBlockHash: p.string().length(66).nullable(),
    /** Why the relay is waiting or retrying (e.g. the relayer is out of gas), written as it happens. */
    relayNote: p.text().nullable(),
    /**
     * The last concrete reason the router refused the order (allowance, funds, a refused transfer…):
     * what the payout fails with when its deadline passes unexecuted, whatever gave the relay up.
     */
    lastRelayReason: p.enum(FAILURE_REASONS).nullable(),
    /**
     * A block where the router executed another order under this payout's nonce, not final yet: the
     * payout fails `nonce_used` once that block is final, and waits again if it leaves the chain.
     */
    conflictBlock: p.bigint('number').nullable(),
    version: p.integer().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    authorizedAt: p.datetime().nullable(),
    settledAt: p.datetime().nullable(),
  },
});
export class Payout extends PayoutSchema.class {}
PayoutSchema.setClass(Payout);

/**
 * The next router nonce of one signer on one router (D14): allocated by an atomic increment, never by
 * reading the chain, so concurrent creates can never share one.
 */
export const RouterNonceSchema = defineEntity({
  name: 'RouterNonce',
  tableName: 'router_nonces',
  properties: {
    network: p.string().length(32).primary(),
    router: p.string().length(42).primary(),
    signer: p.string().length(42).primary(),
    next: p.decimal('string').precision(78).scale(0),
    updatedAt: updatedAt(),
  },
});
export class RouterNonce extends RouterNonceSchema.class {}
RouterNonceSchema.setClass(RouterNonce);
