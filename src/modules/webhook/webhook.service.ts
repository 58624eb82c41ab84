import type { EntityManager } from '../../db/orm.ts';
import { findPage, type Page, setFilters } from '../../db/pagination.ts';
import type { PubSub } from '../../db/pubsub.ts';
import { AppError, notFound, validation } from '../../errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { ApiKey } from '../auth/auth.entity.ts';
import { Merchant } from '../merchant/merchant.entity.ts';
import { requeue } from './claim.ts';
import { Deliverer, type DeliverOutcome } from './delivery.ts';
import { createDelivery, type DeliveryNotice, deliveryTopic } from './outbox.ts';
import {
  BATCH_SIZE,
  DEFAULT_TIMEOUT_MS,
  PATIENCE_MS,
  PER_MERCHANT_IN_FLIGHT,
  RUN_BUDGET_MS,
  SWEEP_GRACE_MS,
} from './schedule.ts';
import { ConnectionPools } from './sender.ts';
import { type Resolver, systemResolver } from './ssrf.ts';
import { DeliveryWaker } from './waker.ts';
import { type DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEvent } from './webhook.entity.ts';

export interface WebhookServiceOptions {
  secretsKey: Buffer;
  /** `config.webhookAllowPrivate`: loopback/private targets allowed (embedded stack, tests). */
  allowPrivate: boolean;
  logger: Logger;
  /** The process's publish/subscribe, behind the `webhookDeliveryUpdated` subscription. */
  pubsub: PubSub;
  /** Milliseconds since the epoch (default Date.now); tests drive the retry schedule with it. */
  now?: () => number;
  /** Per-attempt timeout (default 10 s). */
  timeoutMs?: number;
  /** Host name resolution used by the SSRF check (default: the OS resolver). */
  resolve?: Resolver;
  /** Attempts claimed per statement (default 32). */
  batchSize?: number;
  /** Attempts of one merchant in flight at once (default 16). */
  perMerchant?: number;
  /** How long a run waits for a slow receiver before leaving it to finish on its own (default 250 ms). */
  patienceMs?: number;
}

export interface DeliveryFilter {
  merchantId?: string | null;
  status?: DeliveryStatus | null;
  event?: string | null;
  subjectId?: string | null;
}

export type DeliveryPage = Page<WebhookDelivery>;

export const MAX_PAGE_SIZE = 100;

/** Webhook deliveries: the delivery task's entry points and the operators' view and resend. */
export class WebhookService {
  private readonly now: () => number;
  private readonly deliverer: Deliverer;
  private readonly pools = new ConnectionPools();
  private readonly pubsub: PubSub;
  private readonly logger: Logger;

  constructor(options: WebhookServiceOptions) {
    this.pubsub = options.pubsub;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.deliverer = new Deliverer({
      secretsKey: options.secretsKey,
      allowPrivate: options.allowPrivate,
      now: this.now,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      resolve: options.resolve ?? systemResolver,
      userAgent: 'cryptopay-gateway-webhooks/0.2.0',
      logger: options.logger,
      pools: this.pools,
      batchSize: options.batchSize ?? BATCH_SIZE,
      perMerchant: options.perMerchant ?? PER_MERCHANT_IN_FLIGHT,
      patienceMs: options.patienceMs ?? PATIENCE_MS,
      runBudgetMs: RUN_BUDGET_MS,
    });
  }

  /**
   * Runs one `deliver_webhook` job: the attempt of `deliveryId` (null for a pump run) and, in the
   * same batches, whatever else is due. Answers what became of `deliveryId`.
   */
  deliver(em: EntityManager, deliveryId: string | null): Promise<DeliverOutcome> {
    return this.deliverer.run(em, deliveryId);
  }

  /** Starts waking delivery for new events in this (worker) process: see DeliveryWaker. */
  wake(fork: () => EntityManager): Promise<DeliveryWaker> {
    return new DeliveryWaker({ pubsub: this.pubsub, fork, logger: this.logger }).start();
  }

  /** Waits for attempts still in flight in this process to be recorded, then closes its connections. */
  async close(): Promise<void> {
    await this.deliverer.drain();
    this.pools.close();
  }

  /**
   * Re-adds jobs for deliveries nothing is working on: `delivering` past its lease (the worker died;
   * graphile-worker itself would wait 4 h to release the job) and `pending` well past due (its job
   * was lost, or no worker heard it announced). Re-adding is harmless when a job exists: the job key
   * merges them.
   */
  async sweep(em: EntityManager): Promise<number> {
    const now = this.now();
    return em.transactional(async (tx) => {
      const stuck = await tx.find(
        WebhookDelivery,
        {
          $or: [
            { status: 'delivering', leaseUntil: { $lt: new Date(now) } },
            { status: 'pending', nextAttemptAt: { $lt: new Date(now - SWEEP_GRACE_MS) } },
          ],
        },
        { fields: ['id'], limit: 500, orderBy: { nextAttemptAt: 'asc' } },
      );
      for (const d of stuck) await requeue(tx, d.id);
      return stuck.length;
    });
  }

  async get(em: EntityManager, id: string): Promise<WebhookDelivery> {
    const d = await em.findOne(WebhookDelivery, { id }, { populate: ['event'] });
    if (!d) throw notFound('webhook delivery');
    return d;
  }

  /** Newest first; `after` is the `endCursor` of the previous page. */
  async list(
    em: EntityManager,
    filter: DeliveryFilter,
    first = 20,
    after?: string | null,
  ): Promise<DeliveryPage> {
    const limit = Math.min(Math.max(first, 1), MAX_PAGE_SIZE);
    const where = setFilters({ merchant: filter.merchantId, status: filter.status });
    const event = setFilters({ event: filter.event, subjectId: filter.subjectId });
    if (Object.keys(event).length) where.event = event;
    return findPage(em, WebhookDelivery, where, { first: limit, after }, ['event']);
  }

  attempts(em: EntityManager, deliveryId: string): Promise<WebhookAttempt[]> {
    return em.find(WebhookAttempt, { delivery: deliveryId }, { orderBy: { number: 'asc' }, refresh: true });
  }

  /**
   * Queues a fresh delivery of an event (new `wh_` id, same idempotency key and body), whatever state
   * earlier deliveries are in. The target is the event's own callback URL, else the merchant's
   * current default. Refused when the merchant switched webhooks off or holds no active API key.
   */
  async resend(
    em: EntityManager,
    ref: { deliveryId?: string | null; eventId?: string | null },
  ): Promise<WebhookDelivery> {
    if (!ref.deliveryId === !ref.eventId)
      throw validation('exactly one of delivery_id and event_id is required');
    const eventId = ref.eventId ?? (await this.get(em, ref.deliveryId!)).event.id;
    const event = await em.findOne(WebhookEvent, { id: eventId });
    if (!event) throw notFound('webhook event');
    const merchant = await em.findOneOrFail(Merchant, { id: event.merchant.id });
    if (!merchant.webhooksEnabled) throw new AppError('conflict', 'webhooks are disabled for this merchant');
    const now = new Date(this.now());
    const key = await em.count(ApiKey, {
      merchant: merchant.id,
      $or: [{ revokedAt: null }, { revokedAt: { $gt: now } }],
    });
    if (!key)
      throw new AppError('conflict', 'the merchant has no active API key, so webhooks cannot be signed');
    const targetUrl = event.callbackUrl ?? merchant.webhookUrl;
    if (!targetUrl)
      throw new AppError('conflict', 'the merchant has no webhook URL and the event no callback URL');
    const id = await em.transactional((tx) =>
      createDelivery(tx, { eventId: event.id, merchantId: merchant.id, targetUrl }),
    );
    return this.get(em, id);
  }

  /** Every change of a delivery of one merchant (or all), committed by any process. */
  updates(merchantId?: string | null): AsyncIterableIterator<DeliveryNotice> {
    return this.pubsub.updates(deliveryTopic, (n) => !merchantId || n.merchantId === merchantId);
  }
}
