import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../db/timestamps.ts';
import { Payment } from '../ledger/payment.entity.ts';
import { Session } from '../session/session.entity.ts';

/** What an operator did with a router payment no session claimed by itself. */
export const RESOLUTIONS = [
  /** Attached to a session, which it then pays like any payment the follower found. */
  'attached',
  /** Sent back to the payer outside the service; the operator says so. */
  'refunded',
] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/**
 * An operator's decision on an unmatched payment, and who made it. The payment is the primary key:
 * the database itself refuses a second decision (attached twice, attached and refunded), however
 * many operators click at once. It leaves with its payment when a reorganisation takes the payment
 * away (a decision on a transfer that no longer exists means nothing).
 */
export const PaymentResolutionSchema = defineEntity({
  name: 'PaymentResolution',
  tableName: 'payment_resolutions',
  properties: {
    payment: () => p.oneToOne(Payment).primary().owner().deleteRule('cascade'),
    action: p.enum(RESOLUTIONS),
    /** The session it was attached to (attached only). */
    session: () => p.manyToOne(Session).nullable().deleteRule('set null'),
    /** The operator who decided (`ctx.actor.operatorId`). */
    operatorId: p.string().length(64),
    /** The operator's words: the refund transaction, a ticket. */
    note: p.string().length(500).nullable(),
    createdAt: createdAt(),
  },
});
export class PaymentResolution extends PaymentResolutionSchema.class {}
PaymentResolutionSchema.setClass(PaymentResolution);

/**
 * Router payments no session claimed by itself: unmatched ones, and those an operator resolved
 * (attached or refunded; a payment the follower matched never shows here). Read-only, over the
 * ledger: the merchant is the one whose settlement wallet (else a session's pinned payee) received it.
 */
export const UnmatchedPaymentSchema = defineEntity({
  name: 'UnmatchedPayment',
  expression: `
    select p.id::text as id, p.network, p.tx_hash, p.log_index, p.block_number, p.token, p.payer, p.recipient,
           p.amount_raw::text as amount_raw, p.order_ref, p.created_at,
           coalesce(
             (select w.merchant_id from settlement_wallets w
               where w.network = p.network and lower(w.address) = p.recipient order by w.id limit 1),
             (select s.merchant_id from sessions s where s.network = p.network and s.payee = p.recipient limit 1)
           ) as merchant_id,
           coalesce(r.action, 'unmatched') as state, r.session_id as attached_session_id,
           r.operator_id as resolved_by, r.created_at as resolved_at, r.note
      from payments p left join payment_resolutions r on r.payment_id = p.id
     where p.kind = 'router_payment'
       and (r.payment_id is not null or not exists (select 1 from sessions c where c.payment_id = p.id))`,
  properties: {
    id: p.string(),
    network: p.string(),
    txHash: p.string(),
    logIndex: p.integer(),
    blockNumber: p.bigint('number'),
    token: p.string(),
    payer: p.string(),
    recipient: p.string(),
    amountRaw: p.string(),
    orderRef: p.string().nullable(),
    createdAt: p.datetime(),
    merchantId: p.string().nullable(),
    state: p.string().$type<'unmatched' | Resolution>(),
    attachedSessionId: p.string().nullable(),
    resolvedBy: p.string().nullable(),
    resolvedAt: p.datetime().nullable(),
    note: p.string().nullable(),
  },
});
export class UnmatchedPayment extends UnmatchedPaymentSchema.class {}
UnmatchedPaymentSchema.setClass(UnmatchedPayment);
