import { Repeater } from 'graphql-yoga';
import pg from 'pg';
import type { Logger } from '../../lib/logger.ts';
import { DELIVERY_CHANNEL, type DeliveryNotice } from './outbox.ts';

const RECONNECT_MS = 1_000;

/**
 * Fans delivery changes out to GraphQL subscribers. Changes are announced with NOTIFY inside the
 * transaction that makes them (so only committed changes are announced, whichever process made
 * them: the API or a separate worker); one LISTEN connection per process, opened on the first
 * subscriber and closed with the last. Notices sent while the connection is down are missed: this
 * is a live view, the deliveries query is the record.
 */
export class DeliveryNotifier {
  private readonly listeners = new Set<(notice: DeliveryNotice) => void>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly deps: { databaseUrl: string | undefined; logger: Logger }) {}

  /** Subscribers registered now (tests wait for theirs before causing a change). */
  get subscribers(): number {
    return this.listeners.size;
  }

  /** True while the LISTEN connection is up. */
  get listening(): boolean {
    return this.client !== undefined && this.connecting === undefined;
  }

  /** Notices of one merchant (or all), until the consumer stops iterating. */
  updates(merchantId?: string | null): AsyncIterableIterator<DeliveryNotice> {
    return new Repeater<DeliveryNotice>(async (push, stop) => {
      const listener = (notice: DeliveryNotice) => {
        if (!merchantId || notice.merchantId === merchantId) void push(notice);
      };
      this.listeners.add(listener);
      try {
        await this.listen();
      } catch (error) {
        this.listeners.delete(listener);
        stop(error);
        return;
      }
      await stop;
      this.listeners.delete(listener);
      if (this.listeners.size === 0) await this.disconnect();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.disconnect();
  }

  private listen(): Promise<void> {
    if (this.client && !this.connecting) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    if (!this.deps.databaseUrl) throw new Error('delivery updates need a database URL');
    const client = new pg.Client({ connectionString: this.deps.databaseUrl });
    client.on('notification', (message) => {
      if (message.channel !== DELIVERY_CHANNEL || !message.payload) return;
      let notice: DeliveryNotice;
      try {
        notice = JSON.parse(message.payload) as DeliveryNotice;
      } catch {
        return;
      }
      for (const listener of this.listeners) listener(notice);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
  }

  /** The connection dropped: reconnect while anyone still listens. */
  private lost(client: pg.Client, error?: Error): void {
    if (this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => {});
    if (this.closed || this.listeners.size === 0) return;
    this.deps.logger.warn('webhook delivery LISTEN connection lost; reconnecting', { error });
    this.reconnectLater();
  }

  private reconnectLater(): void {
    setTimeout(() => {
      if (this.closed || this.listeners.size === 0 || this.client) return;
      this.listen().catch((error: unknown) => {
        this.deps.logger.warn('webhook delivery LISTEN reconnect failed', { error });
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
