import pg from 'pg';

/** How long a hot-path statement may take before the database counts as degraded (→ 503, not a hang). */
const HOT_PATH_TIMEOUT_MS = 2_000;

/**
 * A statement prepared once per connection under its name: PostgreSQL parses and plans it the first
 * time and then only binds and executes it, which halves its cost for the short statements of every
 * signed request (nonce, status read).
 */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

export const statement = (name: string, text: string): Statement => ({ name, text });

/**
 * The hot path's own small pool, beside the ORM's: prepared statements straight on `pg`, short
 * timeouts so that a slow or unreachable database answers 503 quickly. Everything transactional goes
 * through the ORM; this pool runs single statements only.
 */
export class SqlPool {
  private readonly pool: pg.Pool;

  constructor(databaseUrl: string, options: { max?: number } = {}) {
    this.pool = new pg.Pool({
      connectionString: databaseUrl,
      max: options.max ?? 10,
      connectionTimeoutMillis: HOT_PATH_TIMEOUT_MS,
      statement_timeout: HOT_PATH_TIMEOUT_MS,
      query_timeout: HOT_PATH_TIMEOUT_MS + 500,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  /** Runs a prepared statement; resolves with its rows (and how many rows it touched). */
  async query<Row extends Record<string, unknown>>(
    stmt: Statement,
    values: unknown[],
  ): Promise<{ rows: Row[]; rowCount: number }> {
    const result = await this.pool.query<Row>({ name: stmt.name, text: stmt.text, values });
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
