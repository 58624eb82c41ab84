import type { EntityManager } from '../../db/orm.ts';
import type { PubSub } from '../../db/pubsub.ts';
import type { Logger } from '../../lib/logger.ts';
import { type DeliveryNotice, deliveryTopic, queuePump } from './outbox.ts';

/**
 * Under a stream of new deliveries, one process queues a pump run at most this often. The price: a
 * delivery announced within this long of the last pump waits for the rest of it (one at a time, p50
 * 14 ms rather than 6). With 5 ms, bench/webhooks delivered 0.6 of its baseline instead of 0.8: each
 * queued pump is a statement the deliveries pay for.
 */
export const WAKE_COALESCE_MS = 20;
/** A pump that could not be queued (database trouble) is tried again this much later. */
const RETRY_MS = 1_000;

/** A new delivery, announced by the outbox: due at once and no job of its own. */
export const wakes = (notice: DeliveryNotice): boolean =>
  notice.status === 'pending' && notice.attempts === 0;

/**
 * Wakes delivery for new events, in every worker process. The outbox adds no job per event (the
 * delivery rows are the queue, and a job each would double what an event costs the transaction that
 * announces it); it announces each new delivery, and the waker answers by queueing a pump run of
 * `deliver_webhook`, which sends whatever is due. Every announcement is followed by a pump queued
 * after it arrived, so after the commit that sent it: nothing announced is left behind. A stream of
 * them queues at most one pump per WAKE_COALESCE_MS (a run serves a burst; one already running gets a
 * fresh one queued beside it). What no process heard — no worker was running, or its LISTEN
 * connection was down — is found by the pump queued when the waker starts and when its connection is
 * back, and in the end by the sweeper.
 */
export class DeliveryWaker {
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  private stopped = false;
  private queueing: Promise<void> = Promise.resolve();
  private unsubscribe: (() => Promise<void>) | undefined;

  constructor(private readonly deps: { pubsub: PubSub; fork(): EntityManager; logger: Logger }) {}

  /** Listens, then queues a pump for whatever was committed while no one listened. */
  async start(): Promise<this> {
    this.unsubscribe = await this.deps.pubsub.on(
      deliveryTopic,
      (notice) => {
        if (wakes(notice)) this.poke();
      },
      { resumed: () => this.poke() },
    );
    this.poke();
    return this;
  }

  /** Queues a pump soon (at once, unless one was queued less than WAKE_COALESCE_MS ago). */
  poke(): void {
    if (this.stopped || this.timer) return;
    const wait = Math.max(0, this.last + WAKE_COALESCE_MS - Date.now());
    this.timer = setTimeout(() => {
      // Cleared before queueing: an announcement arriving meanwhile gets a pump queued after it.
      this.timer = undefined;
      this.last = Date.now();
      this.queueing = queuePump(this.deps.fork()).catch((error: Error) => {
        this.deps.logger.warn('could not queue a webhook pump run; trying again', { error: error.message });
        setTimeout(() => this.poke(), RETRY_MS).unref();
      });
    }, wait);
  }

  /** Stops listening; a pump being queued is waited for. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.unsubscribe?.();
    await this.queueing;
  }
}
