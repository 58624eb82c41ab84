import type { EntityManager } from '../../db/orm.ts';

/**
 * Whether loopback and private webhook targets are allowed is the gateway's rule (D9), decided by its
 * configuration (`WEBHOOK_ALLOW_PRIVATE`, `NODE_ENV`, embedded or not). The gateway records the rule it
 * runs with when it starts, and the operator CLI, a separate process with an environment of its own,
 * applies that recorded rule when it sets a merchant's webhook URL: one rule, the gateway's, whoever
 * sets the URL. Before any gateway has started on the database, the CLI's own configuration decides.
 */

const KEY = 'webhook_allow_private';

/** Records the rule this gateway runs with (at start; the last gateway started wins). */
export async function recordWebhookRule(em: EntityManager, allowPrivate: boolean): Promise<void> {
  await em.execute(
    `insert into service_settings (key, value, updated_at) values (?, ?::jsonb, now())
     on conflict (key) do update set value = excluded.value, updated_at = now()`,
    [KEY, JSON.stringify(allowPrivate)],
  );
}

/** The rule the gateway recorded, or `fallback` (the caller's own configuration) when none has. */
export async function gatewayWebhookRule(em: EntityManager, fallback: boolean): Promise<boolean> {
  const [row] = await em.execute<{ value: unknown }[]>('select value from service_settings where key = ?', [
    KEY,
  ]);
  return typeof row?.value === 'boolean' ? row.value : fallback;
}
