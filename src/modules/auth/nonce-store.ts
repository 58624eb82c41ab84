import pg from 'pg';
import { unavailable } from '../../errors.ts';
import { NONCE_WINDOW_SECONDS } from './request-signing.ts';

/** How long a nonce check may take before the store counts as degraded (→ 503, never a hang). */
const NONCE_TIMEOUT_MS = 2_000;

/**
 * Consumed request nonces in PostgreSQL. `consume` is a single INSERT … ON CONFLICT DO NOTHING, so of
 * any number of concurrent requests carrying one nonce exactly one wins. It has its own small pool
 * with short timeouts so that a slow or unreachable database answers 503 quickly.
 */
export class NonceStore {
  private readonly pool: pg.Pool;

  constructor(databaseUrl: string) {
    this.pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 10,
      connectionTimeoutMillis: NONCE_TIMEOUT_MS,
      statement_timeout: NONCE_TIMEOUT_MS,
      query_timeout: NONCE_TIMEOUT_MS + 500,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  /** True when the nonce was fresh (and is now consumed); false when it was used before. */
  async consume(keyId: string, nonce: string): Promise<boolean> {
    try {
      const result = await this.pool.query(
        'INSERT INTO request_nonces (key_id, nonce, created_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING',
        [keyId, nonce],
      );
      return result.rowCount === 1;
    } catch (error) {
      throw unavailable('request nonce could not be verified; retry with a new nonce', error);
    }
  }

  /** Deletes nonces older than the replay window; returns how many. */
  async prune(): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM request_nonces WHERE created_at < now() - make_interval(secs => $1)`,
      [NONCE_WINDOW_SECONDS],
    );
    return result.rowCount ?? 0;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
