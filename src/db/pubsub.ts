import { Repeater } from 'graphql-yoga';
import pg from 'pg';
import type { Logger } from '../lib/logger.ts';
import type { Topic } from './topic.ts';

/**
 * A small typed publish/subscribe over PostgreSQL LISTEN/NOTIFY. A change is published with
 * `pg_notify` inside the transaction that makes it, so only committed changes are announced, and
 * every process (API replicas, separate workers) that listens sees it whichever process made it.
 * Payloads are small (the id of what changed, and what a subscriber filters on); subscribers read the
 * row. Notices sent while a process's LISTEN connection is down are missed: this is a live view, the
 * tables are the record.
 */

export { publish, type Topic, topic } from './topic.ts';

const RECONNECT_MS = 1_000;
/** The `application_name` of the LISTEN connection. */
export const LISTENER_NAME = 'gateway pubsub';

type Handler = (payload: unknown) => void;

/**
 * One LISTEN connection per process for every topic, opened on the first subscription and closed
 * with the last (or kept while a `stay` subscription exists). Reconnects after a dropped connection
 * for as long as anyone listens.
 */
export class PubSub {
  private readonly handlers = new Map<string, Set<Handler>>();
  /** Called when the connection is back after a drop (what was published meanwhile was not heard). */
  private readonly resumers = new Set<() => void>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  /** The connection dropped since it was last up. */
  private dropped = false;

  constructor(private readonly deps: { databaseUrl: string; logger: Logger }) {}

  /** Subscribers registered now (tests wait for theirs before causing a change). */
  subscribers(on: Topic<unknown>): number {
    return this.handlers.get(on.channel)?.size ?? 0;
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.client !== undefined && this.connecting === undefined;
  }

  /**
   * Calls `handler` for every payload on `topic` until the returned function is called. Resolves once
   * the channel is listened to, so a change committed after that is seen. `resumed` is called each
   * time the connection is back after a drop: payloads published in between were lost.
   */
  async on<T>(
    on: Topic<T>,
    handler: (payload: T) => void,
    options: { resumed?: () => void } = {},
  ): Promise<() => Promise<void>> {
    const { resumed } = options;
    const wrapped: Handler = (raw) => {
      const payload = on.parse(raw);
      if (payload !== undefined) handler(payload);
    };
    let set = this.handlers.get(on.channel);
    const fresh = !set;
    if (!set) {
      set = new Set();
      this.handlers.set(on.channel, set);
    }
    set.add(wrapped);
    if (resumed) this.resumers.add(resumed);
    const off = () => {
      if (resumed) this.resumers.delete(resumed);
      return this.off(on.channel, wrapped);
    };
    try {
      await this.connect();
      if (fresh) await this.client?.query(`LISTEN ${on.channel}`);
    } catch (error) {
      await off();
      throw error;
    }
    return off;
  }

  /** The payloads on `topic` that pass `filter`, as an async iterator (a GraphQL subscription source). */
  updates<T>(on: Topic<T>, filter: (payload: T) => boolean = () => true): AsyncIterableIterator<T> {
    return new Repeater<T>(async (push, stop) => {
      let unsubscribe: (() => Promise<void>) | undefined;
      try {
        unsubscribe = await this.on(on, (payload) => {
          if (filter(payload)) void push(payload);
        });
      } catch (error) {
        stop(error);
        return;
      }
      await stop;
      await unsubscribe();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
    this.resumers.clear();
    await this.disconnect();
  }

  private async off(channel: string, handler: Handler): Promise<void> {
    const set = this.handlers.get(channel);
    if (!set?.delete(handler) || set.size > 0) return;
    this.handlers.delete(channel);
    if (this.handlers.size === 0) return this.disconnect();
    await this.client?.query(`UNLISTEN ${channel}`).catch(() => {});
  }

  private connect(): Promise<void> {
    if (this.client && !this.connecting) return Promise.resolve();
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.closed) throw new Error('publish/subscribe is closed');
    // Named, so an operator (or a test) tells it apart in pg_stat_activity.
    const client = new pg.Client({
      connectionString: this.deps.databaseUrl,
      application_name: LISTENER_NAME,
    });
    client.on('notification', (message) => {
      const set = this.handlers.get(message.channel);
      if (!set || !message.payload) return;
      let payload: unknown;
      try {
        payload = JSON.parse(message.payload);
      } catch {
        return;
      }
      for (const handler of set) handler(payload);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    if (this.dropped) {
      this.dropped = false;
      for (const resumed of this.resumers) resumed();
    }
  }

  /** The connection dropped: reconnect while anyone still listens. */
  private lost(client: pg.Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.dropped = true;
    void client.end().catch(() => {});
    if (this.closed || this.handlers.size === 0) return;
    this.deps.logger.warn('LISTEN connection lost; reconnecting', { error: error?.message });
    this.reconnectLater();
  }

  private reconnectLater(): void {
    setTimeout(() => {
      if (this.closed || this.handlers.size === 0 || this.client) return;
      this.connect().catch((error: unknown) => {
        this.deps.logger.warn('LISTEN reconnect failed', { error: (error as Error).message });
        this.reconnectLater();
      });
    }, RECONNECT_MS).unref();
  }

  private async disconnect(): Promise<void> {
    await this.connecting?.catch(() => {});
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
