import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { Context } from '../../graphql/context.ts';
import { requireOperator } from '../../graphql/guards.ts';
import { operatorListing, pageRef } from '../../graphql/pagination.ts';
import type { StrayPaymentView } from './stray.service.ts';

/** Operators' view of stray payments: list them, attach one to a session, or mark it refunded. */

const StateEnum = builder.enumType('UnmatchedPaymentState', {
  description: 'Where an unmatched payment stands.',
  values: {
    unmatched: { description: 'No session holds it and no operator decided on it yet.' },
    attached: { description: 'An operator attached it to a session (`attachedSessionId`).' },
    refunded: { description: 'An operator recorded that it was sent back to its payer.' },
  },
});

const PaymentRef = builder.objectRef<StrayPaymentView>('UnmatchedPayment').implement({
  description:
    'A payment-router payment that no session claimed by itself: its `orderRef` names no session, or it does not match the session it names (coin, wallet, amount), or it came too late. Operators attach it to a session or mark it refunded.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'The ledger row; pass it to `attachPayment` or `markPaymentRefunded`.',
    }),
    network: t.exposeString('network'),
    txHash: t.exposeString('txHash'),
    logIndex: t.exposeInt('logIndex'),
    blockNumber: t.exposeInt('blockNumber'),
    payer: t.exposeString('payer', { description: 'The wallet that paid (lowercase).' }),
    recipient: t.exposeString('recipient', {
      description: 'The merchant wallet the router paid (lowercase).',
    }),
    merchantId: t.exposeID('merchantId', {
      nullable: true,
      description: 'The merchant whose settlement wallet (or a session’s pinned payee) is `recipient`.',
    }),
    token: t.exposeString('token', { description: 'Token contract (lowercase).' }),
    tokenSymbol: t.exposeString('tokenSymbol', {
      nullable: true,
      description: 'Null: not a configured token.',
    }),
    amount: t.exposeString('amount', {
      nullable: true,
      description: 'Whole units, decimal string; null when the token is not configured (see `amountRaw`).',
    }),
    amountRaw: t.exposeString('amountRaw', { description: 'Base units, decimal string.' }),
    orderRef: t.exposeString('orderRef', { nullable: true, description: 'The `order_ref` the payer sent.' }),
    seenAt: t.expose('createdAt', { type: 'DateTime', description: 'When the follower recorded it.' }),
    state: t.field({ type: StateEnum, resolve: (p) => p.state }),
    attachedSessionId: t.exposeID('attachedSessionId', { nullable: true }),
    resolvedBy: t.exposeString('resolvedBy', { nullable: true, description: 'The operator who decided.' }),
    resolvedAt: t.expose('resolvedAt', { type: 'DateTime', nullable: true }),
    note: t.exposeString('note', {
      nullable: true,
      description: 'What the operator wrote with the decision.',
    }),
  }),
});

const PageRef = pageRef('UnmatchedPaymentPage', PaymentRef);

const minutes = z
  .number()
  .int()
  .min(0)
  .max(10 * 365 * 24 * 60);
const FilterInput = builder.inputType('UnmatchedPaymentFilter', {
  fields: (t) => ({
    network: t.string(),
    merchantId: t.id(),
    wallet: t.string({ description: 'The paying wallet, any case.' }),
    state: t.field({ type: StateEnum, description: 'Default `unmatched`.' }),
    minAgeMinutes: t.int({ validate: minutes, description: 'Seen at least this many minutes ago.' }),
    maxAgeMinutes: t.int({ validate: minutes, description: 'Seen at most this many minutes ago.' }),
  }),
});

const note = z.string().max(500);

/** The operator acting: `requireOperator` first, then its id for the record. */
function operatorOf(ctx: Context): string {
  requireOperator(ctx);
  return ctx.actor.kind === 'operator' ? ctx.actor.operatorId : '';
}

builder.queryFields((t) => ({
  unmatchedPayments: operatorListing(t, {
    type: PageRef,
    description:
      'Router payments no session claimed by itself, newest first (unmatched ones unless `state` says otherwise).',
    args: { filter: t.arg({ type: FilterInput }) },
    max: 500,
    byDefault: 50,
    list: (ctx, { filter: f }, first, after) =>
      ctx.services.strayPayments.list(
        ctx.em,
        {
          network: f?.network,
          merchantId: f?.merchantId ? String(f.merchantId) : null,
          payer: f?.wallet,
          state: f?.state,
          minAgeMinutes: f?.minAgeMinutes,
          maxAgeMinutes: f?.maxAgeMinutes,
        },
        first,
        after,
      ),
  }),
  unmatchedPayment: t.field({
    type: PaymentRef,
    description: 'One payment of `unmatchedPayments`, whatever its state.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.strayPayments.get(ctx.em, String(args.id));
    },
  }),
}));

builder.mutationFields((t) => ({
  attachPayment: t.field({
    type: PaymentRef,
    description:
      'Gives an unmatched payment to an open session that has none: the session goes to processing and completes at the payment’s confirmation depth, sending `payment.completed` like any payment. The payment must be in the session’s coin, to its merchant wallet, at least its amount. A payment is attached once, to one session (409 `conflict` otherwise).',
    args: {
      paymentId: t.arg.id({ required: true }),
      sessionId: t.arg.id({ required: true }),
      note: t.arg.string({ validate: note }),
    },
    resolve: (_, args, ctx) =>
      ctx.services.strayPayments.attach(
        ctx.em,
        operatorOf(ctx),
        String(args.paymentId),
        String(args.sessionId),
        args.note,
      ),
  }),
  markPaymentRefunded: t.field({
    type: PaymentRef,
    description:
      'Records that an unmatched payment was sent back to its payer (the refund itself happens outside the service; put its transaction in `note`). It can then never pay a session.',
    args: { paymentId: t.arg.id({ required: true }), note: t.arg.string({ validate: note }) },
    resolve: (_, args, ctx) =>
      ctx.services.strayPayments.markRefunded(ctx.em, operatorOf(ctx), String(args.paymentId), args.note),
  }),
}));
