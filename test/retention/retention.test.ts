import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { APPROVAL_BUILD_TTL_DAYS } from '../../src/modules/approval/approval.built.ts';
import { applyRetention, RETENTION_BATCH } from '../../src/modules/retention/retention.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Retention deletes only what is old and has ended: failed sessions never paid, and webhook events
 * whose deliveries all ended, and approval builds past their broadcast window. Open sessions, paid ones and events still being delivered stay.
 */

let t: TestApp;
let merchantId: string;
let template: string;
const DAY = 86_400_000;
const NOW = new Date('2026-11-26T12:00:00Z');
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

beforeAll(async () => {
  t = await startTestApp();
  merchantId = (await t.merchant()).id;
  template = (await t.app.services.sessions.init(t.app.fork(), merchantId, {})).session as string;
});
afterAll(async () => {
  await t?.close();
});

let seq = 0;
/** A copy of the template session with the given state and last change. */
async function session(
  status: string,
  updatedAt: Date,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const id = `cs_retention_${++seq}`;
  await t.app
    .fork()
    .execute(
      `insert into sessions select * from jsonb_populate_record(null::sessions, (select to_jsonb(s) from sessions s where id = ?) || ?::jsonb)`,
      [
        template,
        JSON.stringify({
          id,
          order_ref: `0x${seq.toString(16).padStart(64, '0')}`,
          external_order_id: null,
          hosted_token_hash: null,
          status,
          updated_at: updatedAt.toISOString(),
          ...extra,
        }),
      ],
    );
  return id;
}

/** A ledger row; `orderRef` as the router's Payment event carries it. */
async function payment(orderRef: string | null): Promise<string> {
  const [row] = await t.app.fork().execute<{ id: string }[]>(
    `insert into payments (network, tx_hash, log_index, block_number, block_hash, kind, token, payer, recipient, amount_raw, order_ref, created_at)
     values ('eth', ?, 0, 1, ?, 'router_payment', ?, ?, ?, 1000000, ?, now()) returning id::text`,
    [
      `0x${(++seq).toString(16).padStart(64, '0')}`,
      `0x${'b'.repeat(64)}`,
      `0x${'c'.repeat(40)}`,
      `0x${'d'.repeat(40)}`,
      `0x${'e'.repeat(40)}`,
      orderRef,
    ],
  );
  return row!.id;
}

/** A webhook event created `createdAt` with deliveries in the given states (each with one attempt). */
async function event(createdAt: Date, deliveries: string[]): Promise<string> {
  const id = `ev_retention_${++seq}`;
  const em = t.app.fork();
  await em.execute(
    `insert into webhook_events (id, merchant_id, event, subject_id, idempotency_key, body, created_at) values (?, ?, 'session.completed', 'x', ?, '{}', ?)`,
    [id, merchantId, id, createdAt],
  );
  for (const [i, status] of deliveries.entries()) {
    await em.execute(
      `insert into webhook_deliveries (id, event_id, merchant_id, target_url, status, created_at, updated_at) values (?, ?, ?, 'https://example.com/hook', ?, ?, ?)`,
      [`${id}_d${i}`, id, merchantId, status, createdAt, createdAt],
    );
    await em.execute(`insert into webhook_attempts (delivery_id, number, started_at) values (?, 1, ?)`, [
      `${id}_d${i}`,
      createdAt,
    ]);
  }
  return id;
}

const exists = async (table: string, id: string) =>
  (await t.app.fork().execute(`select 1 from ${table} where id = ?`, [id])).length === 1;

const settings = { sessionRetentionDays: 30, webhookRetentionDays: 30 };

describe('retention', () => {
  it('deletes failed sessions that were never paid once old, and nothing open, paid or recent', async () => {
    const oldFailed = await session('failed', ago(31));
    const recentFailed = await session('failed', ago(29));
    const oldPending = await session('pending', ago(90));
    const oldProcessing = await session('processing', ago(90));
    const paidId = await payment(null);
    const oldCompleted = await session('completed', ago(90), { payment_id: paidId });
    const failedPaidId = await payment(null);
    const oldFailedPaid = await session('failed', ago(90), { payment_id: failedPaidId });
    // Failed, but a transfer to the router names it: kept, so the transfer stays attributable.
    const lateRef = `0x${'7'.repeat(64)}`;
    await payment(lateRef);
    const oldFailedLate = await session('failed', ago(90), { order_ref: lateRef });

    const result = await applyRetention(t.app.fork(), settings, NOW);
    expect(result.sessions).toBe(1);
    expect(await exists('sessions', oldFailed)).toBe(false);
    for (const kept of [
      recentFailed,
      oldPending,
      oldProcessing,
      oldCompleted,
      oldFailedPaid,
      oldFailedLate,
      template,
    ])
      expect(await exists('sessions', kept)).toBe(true);
    // Idempotent.
    expect((await applyRetention(t.app.fork(), settings, NOW)).sessions).toBe(0);
  });

  it('deletes old webhook events whose deliveries all ended, with their deliveries and attempts', async () => {
    const ended = await event(ago(31), ['delivered', 'failed']);
    const noDeliveries = await event(ago(31), []);
    const recent = await event(ago(29), ['delivered']);
    const stillPending = await event(ago(90), ['delivered', 'pending']);
    const inFlight = await event(ago(90), ['delivering']);

    const result = await applyRetention(t.app.fork(), settings, NOW);
    expect(result.webhookEvents).toBe(2);
    expect(await exists('webhook_events', ended)).toBe(false);
    expect(await exists('webhook_events', noDeliveries)).toBe(false);
    const orphans = await t.app
      .fork()
      .execute<{ n: string }[]>(
        `select (select count(*) from webhook_deliveries where event_id = ?) + (select count(*) from webhook_attempts where delivery_id like ?) as n`,
        [ended, `${ended}_%`],
      );
    expect(Number(orphans[0]!.n)).toBe(0);
    for (const kept of [recent, stillPending, inFlight])
      expect(await exists('webhook_events', kept)).toBe(true);
  });

  it('deletes approval builds past their broadcast window, whatever the settings', async () => {
    const em = t.app.fork();
    const insert = (createdAt: Date) =>
      em.execute<{ id: string }[]>(
        `insert into approval_builds (merchant_id, network, token, spender, owner, amount_raw, chain_id, nonce, gas, gas_price, created_at)
         values (?, 'eth', ?, ?, ?, 1, 1, 0, 50000, 1, ?) returning id::text`,
        [merchantId, `0x${'1'.repeat(40)}`, `0x${'2'.repeat(40)}`, `0x${'3'.repeat(40)}`, createdAt],
      );
    const [expired] = await insert(ago(APPROVAL_BUILD_TTL_DAYS + 1));
    const [live] = await insert(ago(APPROVAL_BUILD_TTL_DAYS - 1));
    const result = await applyRetention(
      t.app.fork(),
      { sessionRetentionDays: 0, webhookRetentionDays: 0 },
      NOW,
    );
    expect(result.approvalBuilds).toBe(1);
    expect(await exists('approval_builds', expired!.id)).toBe(false);
    expect(await exists('approval_builds', live!.id)).toBe(true);
  });

  it('keeps everything when a retention is 0, and deletes in batches', async () => {
    const ids = await Promise.all(Array.from({ length: 3 }, () => session('failed', ago(400))));
    expect(
      (await applyRetention(t.app.fork(), { sessionRetentionDays: 0, webhookRetentionDays: 0 }, NOW))
        .sessions,
    ).toBe(0);
    for (const id of ids) expect(await exists('sessions', id)).toBe(true);
    expect(RETENTION_BATCH).toBeGreaterThan(0);
    expect((await applyRetention(t.app.fork(), settings, NOW)).sessions).toBe(3);
  });

  it('is configured by SESSION_RETENTION_DAYS and WEBHOOK_RETENTION_DAYS (30 days by default)', () => {
    const base = { DATABASE_URL: 'postgres://u:p@localhost/db', NETWORKS_FILE: 'x.json' };
    expect(loadConfig(base)).toMatchObject({ sessionRetentionDays: 30, webhookRetentionDays: 30 });
    expect(loadConfig({ ...base, SESSION_RETENTION_DAYS: '0', WEBHOOK_RETENTION_DAYS: '7' })).toMatchObject({
      sessionRetentionDays: 0,
      webhookRetentionDays: 7,
    });
    expect(() => loadConfig({ ...base, SESSION_RETENTION_DAYS: '-1' })).toThrow(/SESSION_RETENTION_DAYS/);
  });
});
