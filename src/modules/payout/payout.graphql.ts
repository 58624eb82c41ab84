import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { merchantScope, requireOperator } from '../../graphql/guards.ts';
import { operatorListing, pageRef } from '../../graphql/pagination.ts';
import { RelayRequestRef } from '../../relay/relay.graphql.ts';
import { relayOf } from '../../relay/relay.status.ts';
import { authorizePayout } from './payout.authorize.ts';
import { PAYOUT_STATUSES, type Payout } from './payout.entity.ts';
import { orderTypedData } from './payout.order.ts';
import { authorizePayoutRequest, createPayoutRequest, payoutStatusRequest } from './payout.schemas.ts';
import { payoutChanged } from './payout.transition.ts';

/** Single payouts: the merchant operations (REST, or operators naming a merchant), listings and live changes. */

export const PayoutRef = builder.objectRef<Payout>('Payout').implement({
  description: 'A payout: one signed order relayed to a payout router.',
  fields: (t) => ({
    id: t.exposeID('id'),
    merchantId: t.id({ resolve: (p) => p.merchant.id }),
    externalId: t.exposeString('externalId', { nullable: true }),
    batchId: t.exposeString('batchId', { nullable: true }),
    batchIndex: t.exposeInt('batchIndex', { nullable: true }),
    status: t.exposeString('status', { description: 'pending, authorized, submitted, completed, failed.' }),
    failureReason: t.exposeString('failureReason', {
      nullable: true,
      description:
        'Why a failed payout failed: expired, invalid_signature, nonce_used, insufficient_allowance, insufficient_funds, transfer_failed or reverted.',
    }),
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    tokenAddress: t.exposeString('tokenAddress'),
    amount: t.exposeString('amount', { description: 'Whole units.' }),
    amountRaw: t.exposeString('amountRaw', { description: 'Base units.' }),
    recipient: t.exposeString('recipient'),
    callbackUrl: t.exposeString('callbackUrl', { nullable: true }),
    payer: t.exposeString('payer', { description: 'The payout wallet that signs the order.' }),
    router: t.exposeString('router'),
    chainId: t.int({ resolve: (p) => Number(p.chainId) }),
    nonce: t.exposeString('nonce', { description: 'Router nonce, single-use on chain.' }),
    deadline: t.int({ description: 'Unix seconds.', resolve: (p) => Number(p.deadline) }),
    txHash: t.exposeString('txHash', {
      nullable: true,
      description: 'The relay transaction that is mined, else the latest broadcast one.',
    }),
    executedBlock: t.int({
      nullable: true,
      description: 'Block of the router’s PayoutExecuted for this order.',
      resolve: (p) => (p.executedBlock == null ? null : Number(p.executedBlock)),
    }),
    relayNote: t.exposeString('relayNote', {
      nullable: true,
      description:
        'Why the relay is waiting or retrying, written as it happens (e.g. insufficient_allowance: …, or the relayer wallet is out of gas).',
    }),
    lastRelayReason: t.exposeString('lastRelayReason', {
      nullable: true,
      description:
        'The last concrete reason the router refused the order while relaying (insufficient_allowance, insufficient_funds, transfer_failed…): the failure_reason if its deadline passes unexecuted.',
    }),
    relays: t.field({
      type: [RelayRequestRef],
      description:
        'Its relay requests (a batch item: the batch’s submissions) with every transaction and replacement.',
      resolve: (p, _, ctx) => relayOf(ctx.em.fork(), p.batchId ? { batchId: p.batchId } : { id: p.id }),
    }),
    typedData: t.field({
      type: 'JSON',
      description: 'The EIP-712 order, exactly as returned on create.',
      resolve: (p) => orderTypedData(p),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    authorizedAt: t.expose('authorizedAt', { type: 'DateTime', nullable: true }),
    settledAt: t.expose('settledAt', { type: 'DateTime', nullable: true }),
  }),
});

const PayoutPageRef = pageRef('PayoutPage', PayoutRef);

const CreateInput = builder.inputType('PayoutCreateInput', {
  validate: createPayoutRequest,
  fields: (t) => ({
    externalId: t.string(),
    network: t.string({ required: true }),
    token: t.string({ required: true }),
    amount: t.string({ required: true }),
    recipient: t.string({ required: true }),
    callbackUrl: t.string(),
  }),
});

const AuthorizeInput = builder.inputType('PayoutAuthorizeInput', {
  validate: authorizePayoutRequest,
  fields: (t) => ({
    payout: t.string({ required: true }),
    signature: t.string({ required: true }),
  }),
});

const StatusInput = builder.inputType('PayoutStatusInput', {
  validate: payoutStatusRequest,
  fields: (t) => ({ payout: t.string({ required: true }) }),
});

const PayoutFilterInput = builder.inputType('PayoutFilter', {
  fields: (t) => ({
    merchantId: t.id(),
    status: t.string({ validate: z.enum(PAYOUT_STATUSES) }),
    network: t.string(),
    batchId: t.string(),
    externalId: t.string(),
    createdAfter: t.field({ type: 'DateTime' }),
    createdBefore: t.field({ type: 'DateTime' }),
    search: t.string({ description: 'Exact payout id, external id, recipient or relay transaction hash.' }),
  }),
});

const MERCHANT_ARG = { description: 'Operators: the merchant to act for. Merchants: omit.' };

builder.queryFields((t) => ({
  payoutStatus: t.field({
    type: PayoutRef,
    description: 'Read-only state of a payout; safe to poll.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: StatusInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.payouts.get(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), input.payout),
  }),
  payout: t.field({
    type: PayoutRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.payouts.get(ctx.em, null, String(args.id));
    },
  }),
  payouts: operatorListing(t, {
    type: PayoutPageRef,
    description: 'Payouts newest first.',
    args: { filter: t.arg({ type: PayoutFilterInput }) },
    max: 500,
    byDefault: 50,
    list: (ctx, { filter: f }, first, after) =>
      ctx.services.payouts.list(
        ctx.em,
        {
          ...f,
          merchantId: f?.merchantId ? String(f.merchantId) : null,
          status: (f?.status as Payout['status'] | null | undefined) ?? null,
        },
        first,
        after,
      ),
  }),
}));

builder.mutationFields((t) => ({
  payoutCreate: t.field({
    type: PayoutRef,
    description:
      'Creates a payout order to sign; the same external_id with the same parameters returns the same payout and order.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: CreateInput, required: true }) },
    resolve: async (_, { merchantId, input }, ctx) =>
      (await ctx.services.payouts.create(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), input))
        .payout,
  }),
  payoutAuthorize: t.field({
    type: PayoutRef,
    description: 'Authorizes a payout with the payout wallet’s EIP-712 signature and queues its relay.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: AuthorizeInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      authorizePayout(
        ctx.services.payouts,
        ctx.em,
        merchantScope(ctx, merchantId && String(merchantId)),
        input,
      ),
  }),
}));

builder.subscriptionFields((t) => ({
  payoutChanged: t.field({
    type: PayoutRef,
    description:
      'The payout when created and after each committed change (authorized, relayed, executed, settled), made by any process.',
    args: { merchantId: t.arg.id(), id: t.arg.id() },
    subscribe: (_, args, ctx) => {
      requireOperator(ctx);
      const merchantId = args.merchantId ? String(args.merchantId) : null;
      const id = args.id ? String(args.id) : null;
      return ctx.services.pubsub.updates(
        payoutChanged,
        (n) => (!merchantId || n.merchantId === merchantId) && (!id || n.id === id),
      );
    },
    // The notice names the payout; the row is read fresh, after the commit that announced it.
    resolve: (notice, _, ctx) => ctx.services.payouts.get(ctx.em.fork(), null, notice.id),
  }),
}));
