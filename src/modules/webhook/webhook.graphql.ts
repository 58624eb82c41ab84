import { Repeater } from 'graphql-yoga';
import { builder } from '../../graphql/builder.ts';
import { requireOperator } from '../../graphql/guards.ts';
import { operatorListing, pageRef } from '../../graphql/pagination.ts';
import { DELIVERY_STATUSES, type WebhookAttempt, WebhookDelivery } from './webhook.entity.ts';
import { MAX_PAGE_SIZE } from './webhook.service.ts';

/** Operator view of webhook deliveries: list, inspect, resend, and watch them change live. */

const StatusEnum = builder.enumType('WebhookDeliveryStatus', { values: DELIVERY_STATUSES });

const AttemptRef = builder.objectRef<WebhookAttempt>('WebhookAttempt').implement({
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    number: t.exposeInt('number'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    statusCode: t.exposeInt('statusCode', { nullable: true }),
    latencyMs: t.exposeInt('latencyMs', { nullable: true }),
    responseBody: t.exposeString('responseBody', {
      nullable: true,
      description: 'First 2 KiB of the answer.',
    }),
    error: t.exposeString('error', { nullable: true }),
  }),
});

const DeliveryRef = builder.objectRef<WebhookDelivery>('WebhookDelivery').implement({
  description: 'One delivery of a webhook event to one URL; its id is the `X-Webhook-Id` header.',
  fields: (t) => ({
    id: t.exposeID('id'),
    merchantId: t.id({ resolve: (d) => d.merchant.id }),
    eventId: t.id({ resolve: (d) => d.event.id }),
    event: t.string({ description: 'Event name, e.g. payment.completed.', resolve: (d) => d.event.event }),
    subjectId: t.string({ resolve: (d) => d.event.subjectId }),
    idempotencyKey: t.string({ resolve: (d) => d.event.idempotencyKey }),
    body: t.string({ description: 'The exact JSON body sent.', resolve: (d) => d.event.body }),
    targetUrl: t.exposeString('targetUrl'),
    status: t.field({ type: StatusEnum, resolve: (d) => d.status }),
    attemptCount: t.exposeInt('attempts'),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    attempts: t.field({
      type: [AttemptRef],
      resolve: (d, _, ctx) => ctx.services.webhooks.attempts(ctx.em, d.id),
    }),
  }),
});

const PageRef = pageRef('WebhookDeliveryPage', DeliveryRef);

const FilterInput = builder.inputType('WebhookDeliveryFilter', {
  fields: (t) => ({
    merchantId: t.id({ required: false }),
    status: t.field({ type: StatusEnum, required: false }),
    event: t.string({ required: false }),
    subjectId: t.string({ required: false, description: 'Session, deposit or payout id.' }),
  }),
});

builder.queryFields((t) => ({
  webhookDeliveries: operatorListing(t, {
    type: PageRef,
    description: 'Deliveries, newest first.',
    args: { filter: t.arg({ type: FilterInput }) },
    max: MAX_PAGE_SIZE,
    byDefault: 20,
    list: (ctx, { filter: f }, first, after) =>
      ctx.services.webhooks.list(
        ctx.em,
        {
          merchantId: f?.merchantId ? String(f.merchantId) : null,
          status: f?.status,
          event: f?.event,
          subjectId: f?.subjectId,
        },
        first,
        after,
      ),
  }),
  webhookDelivery: t.field({
    type: DeliveryRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.webhooks.get(ctx.em, String(args.id));
    },
  }),
}));

builder.mutationFields((t) => ({
  resendWebhook: t.field({
    type: DeliveryRef,
    description:
      'Queues a fresh delivery (new id, same X-Idempotency-Key) of the event of `deliveryId`, or of `eventId`.',
    args: { deliveryId: t.arg.id(), eventId: t.arg.id() },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.webhooks.resend(ctx.em, {
        deliveryId: args.deliveryId ? String(args.deliveryId) : null,
        eventId: args.eventId ? String(args.eventId) : null,
      });
    },
  }),
}));

builder.subscriptionFields((t) => ({
  webhookDeliveryUpdated: t.field({
    type: DeliveryRef,
    description: 'Each change of a delivery (created, attempt started, delivered, retry scheduled, failed).',
    args: { merchantId: t.arg.id() },
    subscribe: (_, args, ctx) => {
      requireOperator(ctx);
      const notices = ctx.services.webhooks.updates(args.merchantId ? String(args.merchantId) : null);
      // Each notice carries the delivery's state as of that change; the rest (event, body, target)
      // never changes and is loaded. One at a time, so subscribers see the changes in order.
      return new Repeater<WebhookDelivery>(async (push, stop) => {
        void stop.then(() => notices.return?.());
        for await (const n of notices) {
          const delivery = await ctx.em
            .fork()
            .findOne(WebhookDelivery, { id: n.id }, { populate: ['event'] });
          if (!delivery) continue;
          const date = (v: string | null) => (v ? new Date(v) : null);
          Object.assign(delivery, {
            status: n.status,
            attempts: n.attempts,
            nextAttemptAt: date(n.nextAttemptAt),
            lastStatusCode: n.lastStatusCode,
            lastError: n.lastError,
            deliveredAt: date(n.deliveredAt),
            updatedAt: new Date(n.updatedAt),
          });
          await push(delivery);
        }
        stop();
      });
    },
    resolve: (delivery) => delivery as WebhookDelivery,
  }),
}));
