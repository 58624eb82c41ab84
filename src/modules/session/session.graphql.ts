import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { Actor } from '../../graphql/context.ts';
import { merchantScope, requireOperator } from '../../graphql/guards.ts';
import { operatorListing, pageRef } from '../../graphql/pagination.ts';
import type { Session } from './session.entity.ts';
import { ORDER_STATUSES } from './session.entity.ts';
import type { SessionBy } from './session.history.ts';
import { initRequest, statusRequest, stepRequest } from './session.schemas.ts';
import { sessionChanged } from './session.transition.ts';
import type { Component, StepOption, StepResponse, WalletAction } from './session.view.ts';

/** Deposit sessions: the cashier operations (merchants over REST, operators naming a merchant) and listings. */

const OptionRef = builder.objectRef<StepOption>('StepOption').implement({
  fields: (t) => ({
    label: t.exposeString('label'),
    action: t.exposeString('action'),
    value: t.exposeString('value'),
    note: t.exposeString('note', { nullable: true }),
    disabled: t.exposeBoolean('disabled', { nullable: true }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why a disabled option cannot be chosen.',
    }),
  }),
});

const ComponentRef = builder.objectRef<Component>('StepComponent').implement({
  description: 'One UI element to render.',
  fields: (t) => ({
    type: t.exposeString('type'),
    text: t.exposeString('text', { nullable: true }),
    options: t.field({ type: [OptionRef], nullable: true, resolve: (c) => c.options }),
    name: t.exposeString('name', { nullable: true }),
    label: t.exposeString('label', { nullable: true }),
    placeholder: t.exposeString('placeholder', { nullable: true }),
    action: t.exposeString('action', { nullable: true }),
    status: t.exposeString('status', { nullable: true }),
  }),
});

const WalletActionRef = builder.objectRef<WalletAction>('WalletAction').implement({
  description: 'An EIP-1193 request for the player wallet; forward it untouched.',
  fields: (t) => ({
    method: t.exposeString('method'),
    params: t.field({ type: ['JSON'], resolve: (w) => w.params }),
    chainId: t.exposeString('chainId', { nullable: true, description: 'Hex chain id to switch to first.' }),
  }),
});

export const StepResponseRef = builder.objectRef<StepResponse>('StepResponse').implement({
  fields: (t) => ({
    step: t.exposeString('step'),
    session: t.exposeString('session'),
    status: t.exposeString('status', {
      description:
        'Order status: pending, processing, completed, failed; a terminal step always says how the order ended.',
    }),
    components: t.field({ type: [ComponentRef], resolve: (r) => r.components }),
    walletAction: t.field({ type: WalletActionRef, nullable: true, resolve: (r) => r.walletAction }),
    submitAction: t.exposeString('submitAction', { nullable: true }),
  }),
});

export const SessionRef = builder.objectRef<Session>('DepositSession').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    merchantId: t.id({ resolve: (s) => s.merchant.id }),
    externalOrderId: t.exposeString('externalOrderId', { nullable: true }),
    playerId: t.exposeString('playerId', { nullable: true }),
    callbackUrl: t.exposeString('callbackUrl', { nullable: true }),
    language: t.exposeString('language'),
    prefillNetwork: t.exposeString('prefillNetwork', { nullable: true }),
    prefillToken: t.exposeString('prefillToken', { nullable: true }),
    prefillAmount: t.exposeString('prefillAmount', { nullable: true }),
    network: t.exposeString('network', { nullable: true }),
    token: t.exposeString('token', { nullable: true }),
    amount: t.exposeString('amount', { nullable: true }),
    wallet: t.exposeString('wallet', { nullable: true }),
    step: t.exposeString('step'),
    status: t.exposeString('status'),
    orderRef: t.exposeString('orderRef'),
    deadline: t.string({ nullable: true, resolve: (s) => (s.deadline == null ? null : String(s.deadline)) }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    approvalTxHash: t.exposeString('approvalTxHash', { nullable: true }),
    reportedTxHash: t.exposeString('reportedTxHash', { nullable: true }),
    payee: t.exposeString('payee', {
      nullable: true,
      description: 'The wallet the payment must reach, pinned when the session got its network.',
    }),
    txHash: t.string({
      nullable: true,
      description: 'The transaction of the payment that pays this session.',
      resolve: (s) => s.payment?.txHash ?? null,
    }),
    blockNumber: t.int({ nullable: true, resolve: (s) => s.payment?.blockNumber ?? null }),
    failureReason: t.exposeString('failureReason', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    settledAt: t.expose('settledAt', { type: 'DateTime', nullable: true }),
    view: t.field({
      type: StepResponseRef,
      description: 'The StepResponse the merchant would see now.',
      resolve: (s, _, ctx) => ctx.services.sessions.render(ctx.em, s.merchant.id, s),
    }),
  }),
});

const SessionPageRef = pageRef('DepositSessionPage', SessionRef);

const InitInput = builder.inputType('CashierInitInput', {
  validate: initRequest,
  fields: (t) => ({
    playerId: t.string(),
    externalOrderId: t.string(),
    callbackUrl: t.string(),
    amount: t.string(),
    network: t.string(),
    token: t.string(),
    language: t.string(),
  }),
});

const StepInput = builder.inputType('CashierStepInput', {
  validate: stepRequest,
  fields: (t) => ({
    session: t.string({ required: true }),
    action: t.string({ required: true }),
    value: t.string(),
  }),
});

const StatusInput = builder.inputType('CashierStatusInput', {
  validate: statusRequest,
  fields: (t) => ({ session: t.string({ required: true }) }),
});

const SessionFilterInput = builder.inputType('DepositSessionFilter', {
  fields: (t) => ({
    merchantId: t.id(),
    status: t.string({ validate: z.enum(ORDER_STATUSES) }),
    network: t.string(),
    externalOrderId: t.string(),
    search: t.string({
      description:
        'Exact session id, external order id, player id, payer wallet, or reported or paying transaction hash.',
    }),
    createdAfter: t.field({ type: 'DateTime' }),
    createdBefore: t.field({ type: 'DateTime' }),
  }),
});

const MERCHANT_ARG = { description: 'Operators: the merchant to act for. Merchants: omit.' };

builder.queryFields((t) => ({
  cashierStatus: t.field({
    type: StepResponseRef,
    description: 'Read-only state of a session: the step to show now, safe to poll.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: StatusInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.sessions.status(
        // Forked only if the step needs the database (the network picker): polls mostly do not.
        () => ctx.em,
        merchantScope(ctx, merchantId && String(merchantId)),
        input.session,
      ),
  }),
  session: t.field({
    type: SessionRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.sessions.get(ctx.em, null, String(args.id));
    },
  }),
  sessions: operatorListing(t, {
    type: SessionPageRef,
    description: 'Sessions newest first.',
    args: { filter: t.arg({ type: SessionFilterInput }) },
    max: 500,
    byDefault: 50,
    list: (ctx, { filter: f }, first, after) =>
      ctx.services.sessions.list(
        ctx.em,
        { ...f, merchantId: f?.merchantId ? String(f.merchantId) : null },
        first,
        after,
      ),
  }),
}));

builder.mutationFields((t) => ({
  cashierInit: t.field({
    type: StepResponseRef,
    description:
      'Opens a self-hosted deposit session; the same external_order_id with the same parameters returns the same session.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: InitInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.sessions.init(
        ctx.em,
        merchantScope(ctx, merchantId && String(merchantId)),
        input,
        byActor(ctx.actor),
      ),
  }),
  cashierStep: t.field({
    type: StepResponseRef,
    description: 'Submits the action the current step expects and returns the next step.',
    args: { merchantId: t.arg.id(MERCHANT_ARG), input: t.arg({ type: StepInput, required: true }) },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.sessions.step(
        ctx.em,
        merchantScope(ctx, merchantId && String(merchantId)),
        input,
        byActor(ctx.actor),
      ),
  }),
}));

builder.subscriptionFields((t) => ({
  sessionChanged: t.field({
    type: SessionRef,
    description:
      'The session after each committed change (a player action, a payment found, confirmed or lost, expiry), made by any process.',
    args: { merchantId: t.arg.id(), id: t.arg.id() },
    subscribe: (_, args, ctx) => {
      requireOperator(ctx);
      const merchantId = args.merchantId ? String(args.merchantId) : null;
      const id = args.id ? String(args.id) : null;
      return ctx.services.pubsub.updates(
        sessionChanged,
        (n) => (!merchantId || n.merchantId === merchantId) && (!id || n.id === id),
      );
    },
    // The notice names the session; the row is read fresh, after the commit that announced it.
    resolve: (notice, _, ctx) => ctx.services.sessions.get(ctx.em.fork(), null, notice.id),
  }),
}));

/** The cause of a change made by a GraphQL caller: the merchant's API, the hosted page, an operator. */
export function byActor(actor: Actor): SessionBy {
  switch (actor.kind) {
    case 'operator':
      return { cause: 'operator', actor: actor.operatorId };
    case 'merchant':
      return { cause: 'merchant_api', actor: actor.keyId };
    default:
      // The hosted page calls by its link's token alone: the player.
      return { cause: 'player' };
  }
}
