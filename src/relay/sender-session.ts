import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../lib/logger.ts';

/**
 * Whether the sender that claimed relay requests is still alive, so that a killed worker's claims are
 * taken over at once instead of when their lease runs out (evm-pipeline.ts). Each sending process holds,
 * for as long as it lives, a PostgreSQL session-level advisory lock on a random token over one
 * dedicated connection, and writes that token on what it claims (`claimed_by`). The server releases the
 * lock the moment the connection ends, and a killed process's connection ends with it (the kernel closes
 * the socket); a claim whose token nobody holds is free.
 *
 * The lock guards no data and nothing ever waits on it: it is only a sign of life, taken once and held
 * across everything the process does (chain calls included). A wrong verdict costs nothing but work: a
 * claim only shares the queue between senders; nonces are decided under the wallet's row lock, where a
 * request that already has one is never signed again. Without a database URL, or while the connection
 * cannot be made, claims carry no token and fall back to their lease.
 */

/** First key of every sender token lock (the second is the token). */
export const SENDER_LOCK_CLASS = 0x6372_6c73; // "crls"

/**
 * A stored, never broadcast transaction older than this is broadcast by whoever finds it, the watcher
 * or another sender of the wallet, even while its own sender is alive: that sender is stuck.
 */
export const STRANDED_MS = 1_500;

/**
 * The tokens of live senders, as SQL: a statement that names it in a `with` clause gets one column
 * `token` (int4), read once from `pg_locks` however many rows it judges.
 */
export const LIVE_SENDERS_SQL = `select l.objid::bigint::int4 as token from pg_locks l
  where l.locktype = 'advisory' and l.classid = ${SENDER_LOCK_CLASS}::int4::oid and l.objsubid = 2 and l.granted`;

/**
 * Whether a stored, never broadcast transaction `t` of relay request `r` is still its sender's own to
 * broadcast, as SQL (it needs `live`, {@link LIVE_SENDERS_SQL}, in the statement's `with` clause): it was
 * stored less than {@link STRANDED_MS} ago, and its sender is not known gone (the request carries no
 * token, or a live session holds it). Anything else is stranded: whoever finds it, the watcher
 * (evm-watch.ts) or another sender of the wallet (evm-gap.ts), broadcasts the same bytes. The age is
 * the database's clock against `created_at`, which the statement that stores a call sets with `now()`.
 */
export const SENDER_HOLDS_SQL = `(t.created_at > now() - make_interval(secs => ${STRANDED_MS / 1000})
  and (r.claimed_by is null or r.claimed_by in (select token from live)))`;

export class SenderSession {
  private client: pg.Client | undefined;
  private held: number | undefined;
  private opening: Promise<number | null> | undefined;
  private closed = false;

  constructor(private readonly deps: { databaseUrl?: string; logger: Logger }) {}

  /** This process's token, taking it on first use; null: claims rely on their lease alone. */
  async token(): Promise<number | null> {
    if (this.held !== undefined) return this.held;
    if (!this.deps.databaseUrl || this.closed) return null;
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Ends the session: its claims are free from now on. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    this.held = undefined;
    await client?.end().catch(() => {});
  }

  private async open(): Promise<number | null> {
    const client = new pg.Client({ connectionString: this.deps.databaseUrl, keepAlive: true });
    const lost = () => {
      if (this.client !== client) return;
      // Claims made with the old token now look abandoned; the next claim takes a new one.
      this.client = undefined;
      this.held = undefined;
      void client.end().catch(() => {});
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      for (let tries = 0; tries < 5; tries++) {
        const token = randomInt(1, 2 ** 31 - 1);
        const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [
          SENDER_LOCK_CLASS,
          token,
        ]);
        if (rows[0]?.ok) {
          if (this.closed) break;
          this.client = client;
          this.held = token;
          return token;
        }
      }
    } catch (error) {
      this.deps.logger.warn('relay sender session unavailable; claims rely on their lease', {
        error: (error as Error).message,
      });
    }
    await client.end().catch(() => {});
    return null;
  }
}
