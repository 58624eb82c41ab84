import type { EntityManager } from '../../db/orm.ts';
import { decryptSecret } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import { withTimeout } from '../../lib/timeout.ts';
import { type Claimed, type ClaimResult, claimBatch, triage } from './claim.ts';
import { queuePump } from './outbox.ts';
import { type Outcome, type Recorded, Recorder } from './recorder.ts';
import { LEASE_MARGIN_MS, retryDelayMs } from './schedule.ts';
import { type ConnectionPools, type PostResult, postWebhook } from './sender.ts';
import { signWebhook } from './signature.ts';
import { type Resolver, resolveTarget, TargetRefused } from './ssrf.ts';

/** What one run of the delivery task did about its own delivery (for logs and tests). */
export type DeliverOutcome =
  | 'delivered'
  | 'retry_scheduled'
  | 'failed'
  /** Ran before the next attempt was due: re-queued for then. */
  | 'not_due'
  /** Another run holds a live lease on the delivery: re-queued for when the lease ends. */
  | 'in_flight'
  /** Due, but its merchant has its share of attempts in flight: the run that frees a slot sends it. */
  | 'deferred'
  /** Still waiting for the receiver when the run ended; its outcome is recorded when it arrives. */
  | 'sending'
  /** Already delivered or failed: nothing recorded. */
  | 'finished'
  /** A takeover after this run's lease expired owns the delivery now. */
  | 'superseded'
  | 'missing'
  /** A run with no delivery of its own that sent whatever was due. */
  | 'pumped';

export interface DeliveryDeps {
  secretsKey: Buffer;
  allowPrivate: boolean;
  /** Milliseconds since the epoch; injectable so tests drive the retry schedule. */
  now: () => number;
  timeoutMs: number;
  resolve: Resolver;
  userAgent: string;
  logger: Logger;
  pools: ConnectionPools;
  /** Attempts claimed per statement (and in flight per run). */
  batchSize: number;
  /** Attempts of one merchant in flight at once, across all runs and processes. */
  perMerchant: number;
  /** How long a run waits for a round's slowest receivers before leaving them to finish on their own. */
  patienceMs: number;
  /** A run stops claiming after this long and hands the rest to a fresh job. */
  runBudgetMs: number;
}

const NO_KEY = 'no active API key to sign with (webhooks are signed with the merchant’s key): not sent';
/** Decrypted API secrets kept, by sealed value (a rotated key has a new one). */
const SECRET_CACHE = 1_000;

/**
 * Sends webhook attempts in batches. One run of `deliver_webhook` claims its own delivery (a pump run
 * has none) and other due ones in one statement (claim.ts), sends them concurrently over kept-alive
 * connections, and writes their outcomes in batches (recorder.ts); it claims again while anything is
 * due, for up to `runBudgetMs`. A receiver slower than `patienceMs` does not hold the run: it finishes
 * on its own, its outcome is recorded when it arrives, and a fresh run is queued for what its merchant
 * still has due. At-least-once: a claim is committed before the POST and the outcome after it, so a
 * process that dies in between leaves `delivering` rows whose leases expire and whose attempts are
 * repeated.
 */
export class Deliverer {
  private readonly recorder: Recorder;
  private readonly detached = new Set<Promise<unknown>>();
  private readonly secrets = new Map<string, string>();

  constructor(private readonly deps: DeliveryDeps) {
    this.recorder = new Recorder(deps.logger);
  }

  /**
   * One run of `deliver_webhook` for `ownId` (null: a pump run). Idempotent: a finished delivery is
   * never attempted again, a live lease keeps a duplicate run out, and an expired lease means the
   * previous run died mid-attempt, so the attempt is repeated (same `X-Webhook-Id` and key).
   */
  async run(em: EntityManager, ownId: string | null): Promise<DeliverOutcome> {
    const started = Date.now();
    let own: string | null = ownId;
    let mine: Promise<DeliverOutcome> | undefined;
    let result: DeliverOutcome | undefined = ownId ? undefined : 'pumped';
    for (let round = 0; ; round++) {
      const now = new Date(this.deps.now());
      const batch = await claimBatch(em, {
        own,
        now,
        leaseUntil: new Date(now.getTime() + this.deps.timeoutMs + LEASE_MARGIN_MS),
        limit: this.deps.batchSize,
        perMerchant: this.deps.perMerchant,
      });
      const sending = batch.claimed.map((c) => {
        const p = this.attempt(em, c);
        if (c.deliveryId === own) mine = p;
        return p;
      });
      // Claim again after any round that sent something: its attempts freed their merchants' slots, and
      // a delivery deferred meanwhile (its own run found the slots taken) is due to be sent by this run.
      let again = batch.more || batch.claimed.length > 0;
      if (own && !mine) {
        const state = await this.why(em, own, now, batch);
        // An orphaned attempt just closed is claimed in the next round.
        if (state === 'due' && round === 0) again = true;
        else {
          result = state === 'due' ? 'deferred' : state;
          own = null;
        }
      } else own = null;
      await this.settle(em, sending);
      if (!again) break;
      if (Date.now() - started > this.deps.runBudgetMs) {
        await this.kick(em);
        break;
      }
    }
    if (result) return result;
    const timeout = Symbol();
    const done = await Promise.race([mine!, Promise.resolve(timeout)]);
    return done === timeout ? 'sending' : (done as DeliverOutcome);
  }

  /**
   * Why the run's own delivery was not claimed, from what the claim saw; the cases that re-queue its
   * job or take over an orphaned attempt go through `triage`, under a row lock.
   */
  private async why(
    em: EntityManager,
    id: string,
    now: Date,
    batch: ClaimResult,
  ): Promise<
    Exclude<DeliverOutcome, 'delivered' | 'retry_scheduled' | 'sending' | 'superseded' | 'pumped'> | 'due'
  > {
    if (batch.ownStatus === undefined) return 'missing';
    if (batch.ownStatus === 'delivered' || batch.ownStatus === 'failed') return 'finished';
    if (batch.ownDue) return 'deferred';
    const state = await triage(em, id, now, this.deps.logger);
    return state === 'pending' ? 'deferred' : state;
  }

  /** Waits until every attempt this process started has been recorded (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.detached.size > 0) await Promise.allSettled([...this.detached]);
  }

  /** Waits for a round's attempts, at most `patienceMs`; stragglers finish on their own. */
  private async settle(em: EntityManager, sending: Promise<DeliverOutcome>[]): Promise<void> {
    if (sending.length === 0) return;
    const finished = new Set<Promise<DeliverOutcome>>();
    for (const p of sending)
      void p.then(
        () => finished.add(p),
        () => finished.add(p),
      );
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.deps.patienceMs);
    });
    await Promise.race([Promise.allSettled(sending), patience]);
    clearTimeout(timer);
    for (const p of sending) {
      if (finished.has(p)) continue;
      // The run goes on without it; what its merchant still has due waits for this slot to free.
      const tracked: Promise<unknown> = p
        .catch(() => undefined)
        .then(() => this.kick(em))
        .catch((error: Error) =>
          this.deps.logger.warn('could not queue a webhook pump run', { error: error.message }),
        )
        .finally(() => this.detached.delete(tracked));
      this.detached.add(tracked);
    }
    // A rejection (the outcome could not be written) is the run's failure when it waited for it.
    const failed = await Promise.all(
      sending
        .filter((p) => finished.has(p))
        .map((p) =>
          p.then(
            () => undefined,
            (e: unknown) => e,
          ),
        ),
    );
    const error = failed.find((e) => e !== undefined);
    if (error) throw error;
  }

  /** Queues a pump run (one waits at a time: the job key merges them). */
  private kick(em: EntityManager): Promise<void> {
    return queuePump(em);
  }

  /** Vets, signs and POSTs one claimed attempt, then records its outcome. */
  private async attempt(em: EntityManager, claim: Claimed): Promise<DeliverOutcome> {
    let result: Partial<PostResult>;
    let fatal = false;
    if (!claim.keyId || !claim.secretSealed) {
      result = { error: NO_KEY };
      fatal = true;
    } else {
      try {
        result = await this.post(claim, claim.keyId, claim.secretSealed);
      } catch (error) {
        // A refused target is final; a name that does not resolve is retried like a refused connection.
        fatal = error instanceof TargetRefused;
        result = { error: (error as Error).message, latencyMs: 0 };
      }
    }
    const recorded = await this.record(em, claim, result, fatal);
    const outcome: DeliverOutcome = recorded === 'pending' ? 'retry_scheduled' : recorded;
    return outcome;
  }

  private async post(claim: Claimed, keyId: string, sealed: string): Promise<PostResult> {
    const timestamp = String(Math.floor(this.deps.now() / 1000));
    const startedAt = performance.now();
    const target = await withTimeout(
      resolveTarget(claim.targetUrl, this.deps.allowPrivate, this.deps.resolve),
      this.deps.timeoutMs,
      `DNS resolution timed out after ${this.deps.timeoutMs} ms`,
    );
    return postWebhook({
      url: target.url,
      agent: this.deps.pools.agent(target.url, target),
      body: claim.body,
      timeoutMs: this.deps.timeoutMs,
      startedAt,
      headers: {
        'content-type': 'application/json',
        'user-agent': this.deps.userAgent,
        'x-webhook-event': claim.event,
        'x-webhook-id': claim.deliveryId,
        'x-idempotency-key': claim.idempotencyKey,
        'x-webhook-timestamp': timestamp,
        'x-webhook-signature': signWebhook(this.secret(sealed), timestamp, claim.body),
        'x-webhook-key-id': keyId,
      },
    });
  }

  private secret(sealed: string): string {
    let secret = this.secrets.get(sealed);
    if (secret === undefined) {
      secret = decryptSecret(this.deps.secretsKey, sealed);
      if (this.secrets.size >= SECRET_CACHE) this.secrets.clear();
      this.secrets.set(sealed, secret);
    }
    return secret;
  }

  private async record(
    em: EntityManager,
    claim: Claimed,
    result: Partial<PostResult>,
    fatal: boolean,
  ): Promise<Recorded> {
    const at = new Date(this.deps.now());
    const code = result.statusCode ?? null;
    const ok = code !== null && code >= 200 && code < 300;
    const delay = ok || fatal ? null : retryDelayMs(claim.number);
    const outcome: Outcome = {
      deliveryId: claim.deliveryId,
      number: claim.number,
      result,
      status: ok ? 'delivered' : delay === null ? 'failed' : 'pending',
      nextAttemptAt: delay === null ? null : new Date(at.getTime() + delay),
      at,
    };
    return this.recorder.record(em, outcome);
  }
}
