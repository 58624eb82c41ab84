import type { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NetworkConfig } from '../../src/chains/networks.ts';
import { createOrm } from '../../src/db/orm.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { watchGap } from '../../src/relay/evm-gap.ts';
import { Relayer, type RelayerDeps } from '../../src/relay/relayer.ts';
import { LIVE_SENDERS_SQL, SENDER_HOLDS_SQL, SenderSession } from '../../src/relay/sender-session.ts';
import { createTestDatabase } from '../support/db.ts';
import { until } from './support.ts';

/**
 * Stored, never broadcast transactions: the one rule the watcher and the gap closer share (its sender's
 * own to broadcast while young and that sender is not known gone; anyone's otherwise), and the gap
 * closer's re-checks of a gap another live sender holds.
 */

const logger = createLogger('error');
let url: string;
let db: pg.Client;
let orm: MikroORM;
let session: SenderSession;
let live: number;

beforeAll(async () => {
  url = await createTestDatabase();
  db = new pg.Client(url);
  await db.connect();
  orm = (await createOrm(url, { poolMax: 2 })) as MikroORM;
  session = new SenderSession({ databaseUrl: url, logger });
  live = (await session.token())!;
});

afterAll(async () => {
  await session?.close();
  await orm?.close();
  await db?.end();
});

/** A request claimed by `claimedBy`, whose one call `wallet` stored `agoMs` before now. */
async function stored(
  subject: string,
  claimedBy: number | null,
  agoMs: number,
  wallet = '0x0000000000000000000000000000000000000002',
): Promise<void> {
  const {
    rows: [request],
  } = await db.query<{ id: string }>(
    `insert into relay_requests (network, kind, subject_id, "to", data, status, nonce, claimed_by, created_at, updated_at)
     values ('eth', 'test', $1, '0x0000000000000000000000000000000000000001', '0x', 'queued',
             (select coalesce(max(nonce), -1) + 1 from relay_requests), $2, now(), now())
     returning id`,
    [subject, claimedBy],
  );
  await db.query(
    `insert into relay_transactions (request_id, network, wallet, nonce, hash, raw, status, created_at)
     select id, 'eth', $4, nonce, $2, '0x', 'signed',
            now() - make_interval(secs => $3::float8 / 1000)
       from relay_requests where id = $1`,
    [request!.id, `0x${subject.padStart(64, '0')}`, agoMs, wallet],
  );
}

it('holds a young transaction of a live or unknown sender; a dead sender’s or an old one is stranded', async () => {
  const dead = live === 1 ? 2 : 1; // tokens are random in [1, 2^31 - 1)
  await stored('a', live, 100); // its sender is alive and may be broadcasting it now
  await stored('b', null, 100); // stored without a token (no session): only age tells
  await stored('c', dead, 100); // its sender's process is gone
  await stored('d', live, 5_000); // its sender is alive and stuck
  await stored('e', null, 5_000);
  const { rows } = await db.query<{ subject_id: string; held: boolean }>(
    `with live as (${LIVE_SENDERS_SQL})
     select r.subject_id, ${SENDER_HOLDS_SQL} as held
       from relay_transactions t join relay_requests r on r.id = t.request_id order by r.subject_id`,
  );
  expect(rows.map((r) => [r.subject_id, r.held])).toEqual([
    ['a', true],
    ['b', true],
    ['c', false],
    ['d', false],
    ['e', false],
  ]);
  // The sender's session ends (as its process would): its young transaction is stranded at once.
  await session.close();
  const after = await db.query<{ held: boolean }>(
    `with live as (${LIVE_SENDERS_SQL})
     select ${SENDER_HOLDS_SQL} as held
       from relay_transactions t join relay_requests r on r.id = t.request_id where r.subject_id = 'a'`,
  );
  expect(after.rows[0]!.held).toBe(false);
});

/** A relayer for the gap closer alone (it reads and writes the database, and calls `broadcast`). */
function relayer(): { relayer: Relayer; looks: () => number } {
  let looks = 0;
  const deps = {
    logger,
    databaseUrl: url,
    fork: () => {
      looks++;
      return orm.em.fork();
    },
  } as unknown as RelayerDeps;
  return { relayer: new Relayer(deps), looks: () => looks };
}

const eth = { id: 'eth' } as NetworkConfig;

it('a gap watch stops when its relayer closes', async () => {
  const wallet = '0x0000000000000000000000000000000000000004';
  const other = new SenderSession({ databaseUrl: url, logger });
  await stored('1f', (await other.token())!, 0, wallet);
  const { relayer: r, looks } = relayer();
  watchGap(r, eth, wallet, 0, 1_000, async () => []);
  await until(
    async () => looks(),
    (n) => n >= 2,
    5_000,
  );
  await r.close();
  await new Promise((resolve) => setTimeout(resolve, 300)); // a look under way ends
  const closedAt = looks();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(looks()).toBe(closedAt);
  await other.close();
});
