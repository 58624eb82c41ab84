import { builder } from '../../graphql/builder.ts';
import { merchantScope, requireOperator } from '../../graphql/guards.ts';
import { byActor, StepResponseRef } from '../session/session.graphql.ts';
import { sessionChanged } from '../session/session.transition.ts';
import { hostedCreateRequest, hostedStatusRequest, hostedStepRequest } from './hosted.schemas.ts';
import type { HostedLink, HostedLinkInfo } from './hosted.service.ts';

/**
 * Hosted payment links: the merchant's create (signed REST, or an operator naming the merchant), and
 * the page's operations, authenticated by the hosted token alone: each sees that one session only.
 */

const HostedLinkRef = builder.objectRef<HostedLink>('HostedLink').implement({
  description: 'A hosted payment link; the token is returned once and stored only as a hash.',
  fields: (t) => ({
    session: t.exposeString('session'),
    token: t.exposeString('token'),
    url: t.exposeString('url'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
  }),
});

const HostedLinkInfoRef = builder.objectRef<HostedLinkInfo>('HostedLinkInfo').implement({
  description:
    'What the hosted page shows around the steps: who is paid, the order so far, language, expiry, return URL, transaction.',
  fields: (t) => ({
    session: t.exposeString('session'),
    language: t.exposeString('language', { description: '`en`, `ru` or `es`.' }),
    network: t.exposeString('network', { nullable: true }),
    token: t.exposeString('token', { nullable: true }),
    amount: t.exposeString('amount', { nullable: true, description: 'Whole units, once known.' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Link expiry; applies only while no payment is reported or found.',
    }),
    paid: t.exposeBoolean('paid', {
      description: 'A payment is reported or found: the link no longer expires.',
    }),
    returnUrl: t.exposeString('returnUrl', { nullable: true }),
    merchantName: t.exposeString('merchantName', {
      description: 'Who the player pays: the merchant’s display name (set by operators), else its name.',
    }),
    orderReference: t.exposeString('orderReference', {
      nullable: true,
      description: 'The merchant’s reference of the order (`external_order_id`), if it gave one.',
    }),
    txHash: t.exposeString('txHash', {
      nullable: true,
      description: 'The payment transaction once found on chain, else the one the player reported.',
    }),
  }),
});

const HostedCreateInput = builder.inputType('HostedCreateInput', {
  validate: hostedCreateRequest,
  fields: (t) => ({
    playerId: t.string(),
    externalOrderId: t.string(),
    callbackUrl: t.string(),
    returnUrl: t.string(),
    amount: t.string(),
    network: t.string(),
    token: t.string(),
    language: t.string(),
  }),
});

const HostedStepInput = builder.inputType('HostedStepInput', {
  validate: hostedStepRequest,
  fields: (t) => ({
    token: t.string({ required: true }),
    action: t.string({ required: true }),
    value: t.string(),
  }),
});

const HostedStatusInput = builder.inputType('HostedStatusInput', {
  validate: hostedStatusRequest,
  fields: (t) => ({ token: t.string({ required: true }) }),
});

builder.queryFields((t) => ({
  hostedLink: t.field({
    type: HostedLinkInfoRef,
    description:
      'What the hosted page shows around the steps, by the token alone (404 unknown, 410 link expired).',
    args: { input: t.arg({ type: HostedStatusInput, required: true }) },
    resolve: (_, { input }, ctx) => ctx.services.hosted.link(ctx.em, input.token),
  }),
  hostedStatus: t.field({
    type: StepResponseRef,
    description: 'The current step of the session a hosted token opens (404 unknown, 410 link expired).',
    args: { input: t.arg({ type: HostedStatusInput, required: true }) },
    resolve: (_, { input }, ctx) => ctx.services.hosted.status(ctx.em, input.token),
  }),
}));

builder.mutationFields((t) => ({
  hostedCreate: t.field({
    type: HostedLinkRef,
    description:
      'Opens (or, for the same external_order_id and parameters, re-opens with a fresh token) a hosted payment link.',
    args: {
      merchantId: t.arg.id({ description: 'Operators: the merchant to act for.' }),
      input: t.arg({ type: HostedCreateInput, required: true }),
    },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.hosted.create(
        ctx.em,
        merchantScope(ctx, merchantId && String(merchantId)),
        input,
        byActor(ctx.actor),
      ),
  }),
  hostedStep: t.field({
    type: StepResponseRef,
    description: 'Submits the current step’s action on the session a hosted token opens.',
    args: { input: t.arg({ type: HostedStepInput, required: true }) },
    resolve: (_, { input }, ctx) => ctx.services.hosted.step(ctx.em, input),
  }),
}));

builder.subscriptionFields((t) => ({
  hostedStepChanged: t.field({
    type: StepResponseRef,
    description:
      'A fresh StepResponse of the hosted token’s session after each committed change, made by any process.',
    args: { token: t.arg.string({ required: true }) },
    subscribe: async (_, { token }, ctx) => {
      const session = await ctx.services.hosted.resolve(ctx.em, token);
      return ctx.services.pubsub.updates(sessionChanged, (n) => n.id === session.id);
    },
    // Rendered fresh after the commit that announced it, through the token again: a token replaced by a
    // repeated create (404) or a link that expired meanwhile (410) stops yielding the session.
    resolve: (_notice, { token }, ctx) => ctx.services.hosted.status(ctx.em.fork(), token),
  }),
  sessionStepChanged: t.field({
    type: StepResponseRef,
    description:
      'Operators: the same stream as hostedStepChanged for any session, named by id; a fresh StepResponse after each committed change.',
    args: { id: t.arg.id({ required: true }) },
    subscribe: async (_, { id }, ctx) => {
      requireOperator(ctx);
      const session = await ctx.services.sessions.get(ctx.em, null, String(id));
      return ctx.services.pubsub.updates(sessionChanged, (n) => n.id === session.id);
    },
    resolve: (notice, _, ctx) => ctx.services.sessions.status(ctx.em.fork(), notice.merchantId, notice.id),
  }),
}));
