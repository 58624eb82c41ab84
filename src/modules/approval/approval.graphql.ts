import { builder } from '../../graphql/builder.ts';
import { merchantScope } from '../../graphql/guards.ts';
import { approvalStatusRequest, broadcastApprovalRequest, buildApprovalRequest } from './approval.schemas.ts';

/** Approvals of the payout routers: build, broadcast, status (merchants over REST; operators naming a merchant). */

interface Built {
  network: string;
  token: string;
  amount: string;
  spender: string;
  source: string;
  transaction: unknown;
  walletAction?: unknown;
}

const BuiltRef = builder.objectRef<Built>('PayoutApproval').implement({
  description: 'An unsigned approve(router, amount) from the payout wallet.',
  fields: (t) => ({
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    amount: t.exposeString('amount'),
    spender: t.exposeString('spender'),
    source: t.exposeString('source'),
    transaction: t.field({ type: 'JSON', resolve: (b) => b.transaction }),
    walletAction: t.field({ type: 'JSON', nullable: true, resolve: (b) => b.walletAction ?? null }),
  }),
});

const BroadcastRef = builder
  .objectRef<{ network: string; token: string; txHash: string }>('PayoutApprovalBroadcast')
  .implement({
    fields: (t) => ({
      network: t.exposeString('network'),
      token: t.exposeString('token'),
      txHash: t.exposeString('txHash'),
    }),
  });

const StatusRef = builder
  .objectRef<{
    network: string;
    token: string;
    spender: string;
    source: string;
    txHash: string;
    status: string;
    block: number | null;
    allowance: string;
  }>('PayoutApprovalState')
  .implement({
    fields: (t) => ({
      network: t.exposeString('network'),
      token: t.exposeString('token'),
      spender: t.exposeString('spender'),
      source: t.exposeString('source'),
      txHash: t.exposeString('txHash'),
      status: t.exposeString('status', { description: 'pending, confirmed, failed or not_found.' }),
      block: t.exposeInt('block', { nullable: true }),
      allowance: t.exposeString('allowance', { description: 'What the router may pull now, whole units.' }),
    }),
  });

const BuildInput = builder.inputType('PayoutApprovalInput', {
  validate: buildApprovalRequest,
  fields: (t) => ({
    network: t.string({ required: true }),
    token: t.string({ required: true }),
    amount: t.string({ required: true }),
    batch: t.boolean(),
  }),
});

const BroadcastInput = builder.inputType('PayoutApprovalBroadcastInput', {
  validate: broadcastApprovalRequest,
  fields: (t) => ({
    network: t.string({ required: true }),
    token: t.string({ required: true }),
    amount: t.string({ required: true }),
    batch: t.boolean(),
    signedTransaction: t.field({ type: 'JSON' }),
    rawTransaction: t.string(),
    signature: t.string(),
  }),
});

const StatusInput = builder.inputType('PayoutApprovalStatusInput', {
  validate: approvalStatusRequest,
  fields: (t) => ({
    network: t.string({ required: true }),
    token: t.string({ required: true }),
    batch: t.boolean(),
    txHash: t.string({ required: true }),
  }),
});

const MERCHANT_ARG = { description: 'Operators: the merchant to act for. Merchants: omit.' };

builder.mutationFields((t) => ({
  payoutApprovalBuild: t.field({
    type: BuiltRef,
    description: 'Builds the unsigned approve(router, amount) from the payout wallet.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: BuildInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.approvals.build(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), input),
  }),
  payoutApprovalBroadcast: t.field({
    type: BroadcastRef,
    description:
      'Broadcasts a signed approval that is exactly the one built; anything else is refused unsent.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: BroadcastInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.approvals.broadcast(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), {
        ...input,
        signedTransaction:
          input.signedTransaction == null
            ? null
            : typeof input.signedTransaction === 'string'
              ? input.signedTransaction
              : JSON.stringify(input.signedTransaction),
      }),
  }),
}));

builder.queryFields((t) => ({
  payoutApprovalStatus: t.field({
    type: StatusRef,
    description: 'Where an approval stands, with the allowance the router has now.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: StatusInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.approvals.status(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), input),
  }),
}));
