import { Coalescer } from '../../db/coalesce.ts';
import { type SqlPool, statement } from '../../db/sql.ts';
import { unavailable } from '../../errors.ts';
import { NONCE_WINDOW_SECONDS } from './request-signing.ts';

/** Rows one prune statement deletes, so that pruning never holds a long lock or hits the timeout. */
const PRUNE_CHUNK = 10_000;

const consumeMany = statement(
  'nonce_consume',
  `INSERT INTO request_nonces (key_id, nonce, created_at)
   SELECT key_id, nonce, now() FROM unnest($1::text[], $2::text[]) AS t(key_id, nonce)
   ON CONFLICT DO NOTHING
   RETURNING key_id, nonce`,
);

const pruneChunk = statement(
  'nonce_prune',
  `DELETE FROM request_nonces WHERE ctid = ANY (ARRAY(
     SELECT ctid FROM request_nonces WHERE created_at < now() - make_interval(secs => $1) LIMIT $2))`,
);

interface Claim {
  keyId: string;
  nonce: string;
}

/**
 * Consumed request nonces in PostgreSQL (D1). A nonce is consumed by inserting it under the primary key
 * (key id, nonce), so of any number of concurrent requests carrying one nonce exactly one wins, in this
 * process or any other.
 *
 * Under load the inserts are coalesced (src/db/coalesce.ts): while a batch is on the wire, the claims
 * that arrive queue up and go together as the next single `INSERT … SELECT unnest(…) ON CONFLICT DO
 * NOTHING RETURNING`, whose returned rows are exactly the fresh nonces. An idle server sends each claim
 * at once, so this adds no latency; a busy one pays one statement and one commit for many requests. A
 * claim is answered only after its batch committed, and a failed batch answers every claim in it with
 * 503.
 */
export class NonceStore {
  private readonly claims: Coalescer<Claim, boolean>;

  constructor(private readonly sql: SqlPool) {
    this.claims = new Coalescer((batch) => this.insert(batch));
  }

  /** True when the nonce was fresh (and is now consumed); false when it was used before. */
  consume(keyId: string, nonce: string): Promise<boolean> {
    return this.claims.load({ keyId, nonce });
  }

  private async insert(batch: Claim[]): Promise<boolean[]> {
    // The same nonce twice in one batch: the first claim stands for both, the others lose to it.
    const ids = batch.map((claim) => `${claim.keyId}\n${claim.nonce}`);
    const first = new Map<string, number>();
    ids.forEach((id, i) => {
      if (!first.has(id)) first.set(id, i);
    });
    const claims = [...first.values()].map((i) => batch[i]!);
    let fresh: Set<string>;
    try {
      const { rows } = await this.sql.query<{ key_id: string; nonce: string }>(consumeMany, [
        claims.map((c) => c.keyId),
        claims.map((c) => c.nonce),
      ]);
      fresh = new Set(rows.map((row) => `${row.key_id}\n${row.nonce}`));
    } catch (cause) {
      throw unavailable('request nonce could not be verified; retry with a new nonce', cause);
    }
    return ids.map((id, i) => first.get(id) === i && fresh.has(id));
  }

  /** Deletes nonces older than the replay window, a chunk per statement; returns how many. */
  async prune(): Promise<number> {
    let total = 0;
    for (;;) {
      const { rowCount } = await this.sql.query(pruneChunk, [NONCE_WINDOW_SECONDS, PRUNE_CHUNK]);
      total += rowCount;
      if (rowCount < PRUNE_CHUNK) return total;
    }
  }
}
