import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../db/timestamps.ts';
import { Merchant } from '../merchant/merchant.entity.ts';

/** Delivery states: `pending` (waiting for its next attempt), `delivering` (an attempt is in flight), then `delivered` or `failed`. */
export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One logical event (e.g. `payment.completed` of one session). The unique (merchant, idempotency key)
 * makes creation idempotent: a settlement job that runs twice finds the event already there. The body
 * is kept as the exact bytes that are signed and sent, never re-serialised.
 */
export const WebhookEventSchema = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  uniques: [{ properties: ['merchant', 'idempotencyKey'] }],
  properties: {
    id: p.string().length(40).primary(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    event: p.string().length(40),
    subjectId: p.string().length(128).index(),
    /** `<event>:<subject id>` (D9), sent as `X-Idempotency-Key` on every delivery of this event. */
    idempotencyKey: p.string().length(200),
    /** Per-session/payout/batch override; null means the merchant default at delivery creation. */
    callbackUrl: p.string().length(2048).nullable(),
    /** One line of JSON, exactly as signed and sent. */
    body: p.text(),
    createdAt: createdAt(),
  },
});
export class WebhookEvent extends WebhookEventSchema.class {}
WebhookEventSchema.setClass(WebhookEvent);

/** One delivery of an event to one URL (`wh_` id, sent as `X-Webhook-Id`); an operator resend is a new one. */
export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [{ properties: ['merchant', 'createdAt'] }, { properties: ['status', 'nextAttemptAt'] }],
  properties: {
    id: p.string().length(40).primary(),
    event: () => p.manyToOne(WebhookEvent).deleteRule('cascade').index(),
    /**
     * Denormalised from the event for operator filters. No foreign key of its own: the event's guards
     * the same merchant, and a merchant's deliveries go with its events.
     */
    merchant: () => p.manyToOne(Merchant).createForeignKeyConstraint(false),
    targetUrl: p.string().length(2048),
    status: p.enum(DELIVERY_STATUSES).default('pending'),
    /** Attempts started so far (at most 8). */
    attempts: p.integer().default(0),
    /** When the next attempt is due; null once delivered or failed. */
    nextAttemptAt: p.datetime().nullable(),
    /** While `delivering`: after this instant the attempt counts as interrupted (its worker died). */
    leaseUntil: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    deliveredAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery);

/** One HTTP attempt of a delivery, for operators: what was answered, how fast, or why it failed. */
export const WebhookAttemptSchema = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  uniques: [{ properties: ['delivery', 'number'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    delivery: () => p.manyToOne(WebhookDelivery).deleteRule('cascade'),
    /** 1-based attempt number within the delivery. */
    number: p.integer(),
    startedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer().nullable(),
    /** The first 2 KiB of the response body. */
    responseBody: p.text().nullable(),
    error: p.text().nullable(),
  },
});
export class WebhookAttempt extends WebhookAttemptSchema.class {}
WebhookAttemptSchema.setClass(WebhookAttempt);
