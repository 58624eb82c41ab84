import { builder } from '../../graphql/builder.ts';
import { merchantScope, requireOperator } from '../../graphql/guards.ts';
import { operatorListing, pageRef } from '../../graphql/pagination.ts';
import { PayoutRef } from '../payout/payout.graphql.ts';
import { payoutChanged } from '../payout/payout.transition.ts';
import { authorizeBatch } from './batch.authorize.ts';
import type { PayoutBatch } from './batch.entity.ts';
import { authorizeBatchRequest, batchStatusRequest, createBatchRequest } from './batch.schemas.ts';
import { type BatchView, batchTypedData } from './batch.service.ts';

/** Batch payouts: the merchant operations (REST, or operators naming a merchant), listing and live changes. */

const BatchRef = builder.objectRef<BatchView>('PayoutBatch').implement({
  description: 'A batch payout: one signed order for up to 100 recipients, each item a payout of its own.',
  fields: (t) => ({
    id: t.id({ resolve: (v) => v.batch.id }),
    merchantId: t.id({ resolve: (v) => v.batch.merchant.id }),
    externalId: t.string({ nullable: true, resolve: (v) => v.batch.externalId }),
    status: t.string({
      description:
        'Derived from the items: pending, authorized, processing, completed, partially_completed, failed.',
      resolve: (v) => v.status,
    }),
    network: t.string({ resolve: (v) => v.batch.network }),
    token: t.string({ resolve: (v) => v.batch.token }),
    total: t.string({ description: 'Sum of the items, whole units.', resolve: (v) => v.batch.total }),
    callbackUrl: t.string({ nullable: true, resolve: (v) => v.batch.callbackUrl }),
    payer: t.string({ resolve: (v) => v.batch.payer }),
    router: t.string({ resolve: (v) => v.batch.router }),
    nonce: t.string({ resolve: (v) => v.batch.nonce }),
    deadline: t.int({ description: 'Unix seconds.', resolve: (v) => Number(v.batch.deadline) }),
    submissions: t.int({
      description: 'Times the signed batch was submitted (each pays only the items still unpaid).',
      resolve: (v) => v.batch.submissions,
    }),
    items: t.field({ type: [PayoutRef], resolve: (v) => v.items }),
    typedData: t.field({
      type: 'JSON',
      description: 'The EIP-712 PayoutBatch order, exactly as returned on create.',
      resolve: (v) => v.typedData ?? batchTypedData(v.batch, v.items),
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (v) => v.batch.createdAt }),
    authorizedAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.batch.authorizedAt ?? null }),
  }),
});

const BatchRowRef = builder.objectRef<PayoutBatch>('PayoutBatchRow').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    batch: t.field({
      type: BatchRef,
      description: 'The batch with its items.',
      resolve: (b, _, ctx) => ctx.services.batches.get(ctx.em.fork(), null, b.id),
    }),
  }),
});

const BatchPageRef = pageRef('PayoutBatchPage', BatchRowRef);

const ItemInput = builder.inputType('PayoutBatchItemInput', {
  fields: (t) => ({
    externalId: t.string(),
    recipient: t.string({ required: true }),
    amount: t.string({ required: true }),
  }),
});

const CreateInput = builder.inputType('PayoutBatchCreateInput', {
  validate: createBatchRequest,
  fields: (t) => ({
    externalId: t.string(),
    network: t.string({ required: true }),
    token: t.string({ required: true }),
    callbackUrl: t.string(),
    items: t.field({ type: [ItemInput], required: true }),
  }),
});

const AuthorizeInput = builder.inputType('PayoutBatchAuthorizeInput', {
  validate: authorizeBatchRequest,
  fields: (t) => ({ batch: t.string({ required: true }), signature: t.string({ required: true }) }),
});

const StatusInput = builder.inputType('PayoutBatchStatusInput', {
  validate: batchStatusRequest,
  fields: (t) => ({ batch: t.string({ required: true }) }),
});

const MERCHANT_ARG = { description: 'Operators: the merchant to act for. Merchants: omit.' };

builder.queryFields((t) => ({
  payoutBatchStatus: t.field({
    type: BatchRef,
    description: 'Read-only state of a batch and every item; safe to poll.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: StatusInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.batches.get(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), input.batch),
  }),
  payoutBatch: t.field({
    type: BatchRef,
    description: 'A batch and every item, by id alone (operators).',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.batches.get(ctx.em, null, String(args.id));
    },
  }),
  payoutBatches: operatorListing(t, {
    type: BatchPageRef,
    description: 'Batches newest first.',
    args: { merchantId: t.arg.id(), network: t.arg.string() },
    max: 200,
    byDefault: 50,
    list: (ctx, args, first, after) =>
      ctx.services.batches.list(
        ctx.em,
        { merchantId: args.merchantId ? String(args.merchantId) : null, network: args.network },
        first,
        after,
      ),
  }),
}));

builder.mutationFields((t) => ({
  payoutBatchCreate: t.field({
    type: BatchRef,
    description:
      'Creates a batch order of 1 to 100 items to sign; the same external_id with the same parameters returns it again.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.batches.create(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), input),
  }),
  payoutBatchAuthorize: t.field({
    type: BatchRef,
    description:
      'Authorizes every item with the payout wallet’s signature over the batch and queues the relay.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: AuthorizeInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      authorizeBatch(
        ctx.services.batches,
        ctx.em,
        merchantScope(ctx, merchantId && String(merchantId)),
        input,
      ),
  }),
}));

builder.subscriptionFields((t) => ({
  payoutBatchChanged: t.field({
    type: BatchRef,
    description:
      'The batch when created and after each committed change of one of its items, made by any process.',
    args: { id: t.arg.id({ required: true }) },
    subscribe: (_, args, ctx) => {
      requireOperator(ctx);
      const id = String(args.id);
      return ctx.services.pubsub.updates(payoutChanged, (n) => n.batchId === id);
    },
    resolve: (_, args, ctx) => ctx.services.batches.get(ctx.em.fork(), null, String(args.id)),
  }),
}));
