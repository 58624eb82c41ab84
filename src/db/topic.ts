import { executeBound } from './bulk.ts';
import type { EntityManager } from './orm.ts';

/**
 * Topics of the publish/subscribe over LISTEN/NOTIFY (./pubsub.ts) and publishing on them: what a
 * process that only writes (the operator CLI) needs, without the subscriber side's imports.
 */

/** A channel and the shape of its payload. */
export interface Topic<T> {
  readonly channel: string;
  /** Checks a received payload; returns undefined for anything malformed (it is dropped). */
  parse(payload: unknown): T | undefined;
}

/** Defines a topic whose payload is a JSON object with the given string fields. */
export function topic<K extends string>(channel: string, fields: readonly K[]): Topic<Record<K, string>> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  return {
    channel,
    parse(payload) {
      if (typeof payload !== 'object' || payload === null) return undefined;
      const record = payload as Record<string, unknown>;
      return fields.every((f) => typeof record[f] === 'string') ? (record as Record<K, string>) : undefined;
    },
  };
}

/** Publishes `payloads` on `topic` through `em`'s connection: inside a transaction, on its commit. */
export async function publish<T>(em: EntityManager, on: Topic<T>, payloads: readonly T[]): Promise<void> {
  if (payloads.length === 0) return;
  await executeBound(em, 'select pg_notify($1::text, p::text) from json_array_elements($2::json) as p', [
    on.channel,
    JSON.stringify(payloads),
  ]);
}
