import { createHash } from 'node:crypto';
import pg from 'pg';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * Who follows which network: a PostgreSQL session-level advisory lock per network, held on one
 * dedicated connection per worker process.
 *
 * Why an advisory lock rather than a job or a lease row with a heartbeat: the server releases a
 * session's locks the moment its connection ends, and a killed process's connection ends with it
 * (the kernel closes the socket), so a standby takes over at its next try, seconds later, with no
 * heartbeat interval or clock to tune and nothing for an operator to unlock. It also holds no
 * graphile-worker job slot. The one case a connection outlives its process's judgement (a network
 * partition that leaves the old leader running) is fenced: every follower transaction first checks,
 * inside the transaction, that its process's lock connection still holds the lock (`fence`), so a
 * follower that lost the lock cannot commit anything.
 */

/** First key of every follower lock (the second is the network's). */
const LOCK_CLASS = 0x6366_6c77; // "cflw"

/** A non-negative 31-bit key for a network id (advisory lock keys are int4; pg_locks shows them as oid). */
export function networkLockKey(network: string): number {
  return createHash('sha256').update(network).digest().readUInt32BE(0) & 0x7fff_ffff;
}

export class LeadershipLost extends Error {
  constructor(network: string) {
    super(`this process no longer leads network ${network}`);
    this.name = 'LeadershipLost';
  }
}

export class Leadership {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private pid: number | undefined;
  private readonly held = new Set<string>();
  private readonly onLost = new Set<() => void>();
  /** The tail of the lock connection's queries: one at a time (pg refuses overlapping ones from v9). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { databaseUrl: string; logger: Logger }) {}

  /** Networks this process leads now. */
  get leading(): ReadonlySet<string> {
    return this.held;
  }

  /** Called (once per loss) when the lock connection drops: every lock is gone with it. */
  whenLost(handler: () => void): () => void {
    this.onLost.add(handler);
    return () => this.onLost.delete(handler);
  }

  /** Tries to become the leader of `network`; true when this process leads it now. */
  async tryLead(network: string): Promise<boolean> {
    if (this.held.has(network)) return true;
    const client = await this.connection();
    const { rows } = await this.serial(() =>
      client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [
        LOCK_CLASS,
        networkLockKey(network),
      ]),
    );
    if (rows[0]?.ok) this.held.add(network);
    return this.held.has(network);
  }

  /** Gives up leading `network` (shutdown); a standby takes over at its next try. */
  async resign(network: string): Promise<void> {
    if (!this.held.delete(network)) return;
    const client = this.client;
    if (!client) return;
    await this.serial(() =>
      client.query('select pg_advisory_unlock($1, $2)', [LOCK_CLASS, networkLockKey(network)]),
    ).catch(() => {});
  }

  /**
   * Inside a transaction: throws LeadershipLost unless this process's lock connection still holds
   * `network`'s lock (it then no longer counts as leading it).
   */
  async fence(tx: EntityManager, network: string): Promise<void> {
    const pid = this.pid;
    if (!this.held.has(network) || pid === undefined) throw new LeadershipLost(network);
    const [row] = await tx.execute<{ held: boolean }[]>(
      `select exists(select 1 from pg_locks where locktype = 'advisory' and classid = ?::int4::oid
         and objid = ?::int4::oid and objsubid = 2 and pid = ? and granted) as held`,
      [LOCK_CLASS, networkLockKey(network), pid],
    );
    if (!row?.held) {
      if (this.pid === pid) this.held.delete(network);
      throw new LeadershipLost(network);
    }
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    await client?.end().catch(() => {});
  }

  /**
   * Runs `query` after every query already sent on the lock connection has answered: the networks'
   * followers try their locks concurrently, and one `pg` client must not have two queries in flight.
   */
  private serial<T>(query: () => Promise<T>): Promise<T> {
    const run = this.queue.then(query, query);
    this.queue = run.catch(() => {});
    return run;
  }

  /** The one lock connection of this process (concurrent callers share one connection attempt). */
  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.deps.databaseUrl, keepAlive: true });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      this.pid = rows[0]!.pid;
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    return client;
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.pid = undefined;
    const had = [...this.held];
    this.held.clear();
    void client.end().catch(() => {});
    if (had.length)
      this.deps.logger.warn('follower lock connection lost', { networks: had, error: error?.message });
    for (const handler of this.onLost) handler();
  }
}
