import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../db/timestamps.ts';
import { Payment } from '../ledger/payment.entity.ts';
import { Merchant } from '../merchant/merchant.entity.ts';

/** Steps of the session step machine (section 3.2). */
export const STEPS = [
  'network_select',
  'connect_wallet',
  'token_select',
  'enter_amount',
  'awaiting_approval',
  'awaiting_payment',
  'processing',
  'completed',
  'failed',
  'reverted',
] as const;
export type Step = (typeof STEPS)[number];

/** A coin of the picker as read from the chain when the step was entered (base units as strings). */
export interface SessionView {
  offers?: {
    symbol: string;
    balance: string | null;
    disabled?: 'insufficient_balance' | 'not_supported' | 'precision';
  }[];
  /** The wallet's balance of the chosen coin (enter_amount). */
  balance?: string;
}

/** Order status of a deposit session (section 3.1). */
export const ORDER_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * A deposit session. Prefilled values (what init sent) and chosen values (what the player picked, or
 * the prefill copied over) are kept apart: `change_wallet` keeps a prefilled coin and forgets a chosen
 * one. The payment that pays it is a row of the payments ledger; the unique `payment` column lets one
 * on-chain transfer pay at most one session. Every change goes through `transitionSessions`
 * (session.transition.ts), guarded by `version`.
 */
export const SessionSchema = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  // Idempotency of init: one session per merchant order reference (NULLs never collide).
  uniques: [{ properties: ['merchant', 'externalOrderId'] }],
  indexes: [
    // Open sessions only (the follower's reads): a settled one leaves it, and its settling write
    // costs the index nothing.
    {
      name: 'sessions_open_network_status_index',
      expression: `create index "sessions_open_network_status_index" on "sessions" ("network", "status") where "status" in ('pending', 'processing')`,
    },
    // Only sessions that reported a transaction (every lookup asks for a given hash).
    {
      name: 'sessions_reported_tx_hash_index',
      expression:
        'create index "sessions_reported_tx_hash_index" on "sessions" ("reported_tx_hash") where "reported_tx_hash" is not null',
    },
    { properties: ['merchant', 'createdAt'] },
    // Whose wallet an unmatched payment reached, when it is no longer a settlement wallet.
    { properties: ['network', 'payee'] },
  ],
  properties: {
    id: p.string().length(40).primary(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    externalOrderId: p.string().length(128).nullable(),
    playerId: p.string().length(128).nullable(),
    callbackUrl: p.string().length(2048).nullable(),
    /** `en`, `ru` or `es`. */
    language: p.string().length(8).default('en'),
    prefillNetwork: p.string().length(32).nullable(),
    prefillToken: p.string().length(16).nullable(),
    /** Canonical decimal, whole units. */
    prefillAmount: p.string().length(100).nullable(),
    network: p.string().length(32).nullable(),
    token: p.string().length(16).nullable(),
    /** Canonical decimal, whole units. */
    amount: p.string().length(100).nullable(),
    /** Connected payer wallet, lowercase. */
    wallet: p.string().length(42).nullable(),
    /**
     * The chain's head block when `wallet` was connected (the newest of the node's and the follower's).
     * A payment claimed by its reported hash alone must be mined above it: a transaction already on
     * chain when the wallet was named was not sent for this session (anyone can name any wallet).
     */
    walletBlock: p.bigint('number').nullable(),
    step: p.string().length(32).$type<Step>(),
    status: p.string().length(16).$type<OrderStatus>().default('pending'),
    /** keccak256 of the UTF-8 session id (D5); the router's `Payment` event carries it. */
    orderRef: p.string().length(66).unique(),
    /** Router deadline, chain seconds; fixed when the wallet first connects (D5). */
    deadline: p.bigint('number').nullable(),
    /** Wall-clock expiry of a still-pending session (SESSION_TTL_MINUTES after creation). */
    expiresAt: p.datetime(),
    approvalTxHash: p.string().length(66).nullable(),
    /** The payment transaction the session reported (`signature_submitted`). */
    reportedTxHash: p.string().length(66).nullable(),
    reportedAt: p.datetime().nullable(),
    /**
     * Where the payment must go: the merchant's settlement wallet of the network when the session got
     * its network, lowercase. Matching compares with this, never with today's wallet.
     */
    payee: p.string().length(42).nullable(),
    /** The ledger row that pays this session; unique, so one transfer pays one session at most. */
    payment: () => p.manyToOne(Payment).nullable().unique().deleteRule('restrict'),
    /** What the current step shows from the chain (coin balances), read when the step was entered. */
    view: p.json<SessionView>().nullable(),
    /** Bumped by every change: a step computed from an older version is refused and recomputed. */
    version: p.integer().default(0),
    failureReason: p.string().length(64).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    settledAt: p.datetime().nullable(),
    /**
     * SHA-256 (hex) of the session's current hosted-link token (D12); the token itself is never
     * stored. A repeated hosted create replaces it, so the earlier token stops working.
     */
    hostedTokenHash: p.string().length(64).nullable().unique(),
    /** Where the hosted page sends the player at a terminal step (`?status=completed|failed`). */
    returnUrl: p.string().length(2048).nullable(),
    /** When the hosted link expires (HPP_LINK_TTL_MINUTES after the latest hosted create, D6/D12). */
    hostedExpiresAt: p.datetime().nullable(),
  },
});
export class Session extends SessionSchema.class {}
SessionSchema.setClass(Session);
