import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { addDeliveryJobsSql, DELIVERY_CHANNEL, NOTICE_JSON } from './outbox.ts';
import type { PostResult } from './sender.ts';

/** An attempt's outcome as written: the attempt row's fields and the delivery's next state. */
export interface Outcome {
  deliveryId: string;
  number: number;
  result: Partial<PostResult>;
  /** `delivered`, `failed` or `pending` (a retry at `nextAttemptAt`). */
  status: 'delivered' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
  at: Date;
}

/** What became of a recorded outcome: applied, or superseded (a takeover owns the delivery now). */
export type Recorded = Outcome['status'] | 'superseded';

/**
 * Outcomes of many attempts in one statement: each attempt row is updated; each delivery only if this
 * run still owns it (same attempt number, still `delivering`); a retry re-adds the delivery's job for
 * `next_attempt_at`; every change is announced.
 */
const RECORD_SQL = `
with input as (
  select * from jsonb_to_recordset(?::jsonb) as i(id text, number int, status text, code int, latency int,
                                                   response text, error text, last_error text,
                                                   next timestamptz, delivered timestamptz, at timestamptz)
), outcome as (
  update webhook_attempts a
     set status_code = i.code, latency_ms = i.latency, response_body = i.response, error = i.error
    from input i where a.delivery_id = i.id and a.number = i.number
), d as (
  update webhook_deliveries w
     set status = i.status, last_status_code = i.code, last_error = i.last_error, next_attempt_at = i.next,
         lease_until = null, delivered_at = i.delivered, updated_at = i.at
    from input i where w.id = i.id and w.status = 'delivering' and w.attempts = i.number
  returning w.*
), jobs as (
  select ${addDeliveryJobsSql('d', 'd.next_attempt_at', "d.status = 'pending'")} as n
)
select d.id, d.status, pg_notify(?, ${NOTICE_JSON}), (select n from jobs) as jobs from d`;

interface Waiting {
  em: EntityManager;
  outcome: Outcome;
  resolve: (r: Recorded) => void;
  reject: (e: unknown) => void;
}

/**
 * Writes outcomes in batches, group-commit style: an outcome arriving while no write is running goes
 * out at once (an idle worker pays no delay); those arriving during a write go together in the next
 * one. A batch fails as a whole; its attempts stay `delivering` and are taken over when their
 * leases end, like those of a worker that died.
 */
export class Recorder {
  private queue: Waiting[] = [];
  private writing = false;

  constructor(private readonly logger: Logger) {}

  record(em: EntityManager, outcome: Outcome): Promise<Recorded> {
    return new Promise((resolve, reject) => {
      this.queue.push({ em, outcome, resolve, reject });
      if (!this.writing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        const applied = await write(
          batch[0]!.em,
          batch.map((w) => w.outcome),
        );
        for (const w of batch) w.resolve(applied.get(w.outcome.deliveryId) ?? 'superseded');
      } catch (error) {
        this.logger.warn('recording webhook outcomes failed; their leases will expire and they are retried', {
          count: batch.length,
          error: (error as Error).message,
        });
        for (const w of batch) w.reject(error);
      }
    }
    this.writing = false;
  }
}

async function write(em: EntityManager, outcomes: Outcome[]): Promise<Map<string, Recorded>> {
  const input = outcomes.map((o) => {
    const code = o.result.statusCode ?? null;
    return {
      id: o.deliveryId,
      number: o.number,
      status: o.status,
      code,
      latency: o.result.latencyMs ?? null,
      response: o.result.responseBody ?? null,
      error: o.result.error ?? null,
      last_error: o.status === 'delivered' ? null : (o.result.error ?? `HTTP ${code}`),
      next: o.nextAttemptAt?.toISOString() ?? null,
      delivered: o.status === 'delivered' ? o.at.toISOString() : null,
      at: o.at.toISOString(),
    };
  });
  const rows = await em.execute<{ id: string; status: Recorded }[]>(RECORD_SQL, [
    JSON.stringify(input),
    DELIVERY_CHANNEL,
  ]);
  return new Map(rows.map((r) => [r.id, r.status]));
}
