import { type EvmLog, wordAddress } from '../../chains/evm/index.ts';
import type { BlockHeader } from '../../chains/types.ts';
import { executeBound } from '../../db/bulk.ts';
import { untilApplied } from '../../db/fresh-reads.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { parseUnits } from '../../money.ts';
import type { LedgerEntry } from '../ledger/ledger.ts';
import { PAYMENT_TOPIC, type SessionNetwork } from './session.chain.ts';
import { atDepth, completion } from './session.settle.ts';
import { type FollowedSession, SNAPSHOT_COLUMNS, type SnapshotRow, snapshotOf } from './session.snapshot.ts';
import { type SessionChange, transitionSessionSteps } from './session.transition.ts';

/**
 * From router `Payment` logs to ledger rows, and from unclaimed ledger rows to the sessions they pay
 * (D5). A payment pays the session whose `order_ref` it carries (its token and pinned payee, at least
 * its amount). Failing that, the session that reported its transaction first, but only where the
 * payment cannot be anyone else's: no session at all carries its `order_ref`, it came from the wallet
 * the session connected, it was mined above the head seen at that connect (a wallet is only a claimed
 * address and a hash is public: a payment already on chain when the wallet was named was not sent for
 * this session), and it is exactly the session's token, payee and amount. Anything else stays
 * unmatched for an operator (stray.service.ts). The claim itself is the unique `sessions.payment_id`:
 * the database, not this code, makes one transfer pay one session.
 */

/**
 * Decodes the router's `Payment` logs into ledger entries; anything else is skipped.
 * `Payment(bytes32 indexed orderRef, address indexed token, address indexed payer, address merchant,
 * uint256 amount)`: three topics after the signature, two words of data. Decoded by hand: the generic
 * ABI decoder costs ~0.2 ms a log, which a backfill of thousands of payments would spend mostly here.
 */
export function paymentEntries(network: SessionNetwork, logs: readonly EvmLog[]): LedgerEntry[] {
  const router = network.contracts.paymentRouter.toLowerCase();
  const entries: LedgerEntry[] = [];
  for (const log of logs) {
    if (log.removed || log.address.toLowerCase() !== router || log.topics[0] !== PAYMENT_TOPIC) continue;
    const [, orderRef, token, payer] = log.topics;
    if (!orderRef || !token || !payer || log.topics.length !== 4 || log.data.length !== 2 + 128) continue;
    entries.push({
      txHash: log.transactionHash.toLowerCase(),
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      kind: 'router_payment',
      token: wordAddress(token),
      payer: wordAddress(payer),
      recipient: wordAddress(`0x${log.data.slice(2, 66)}`),
      amountRaw: BigInt(`0x${log.data.slice(66, 130)}`),
      orderRef: orderRef.toLowerCase(),
    });
  }
  return entries;
}

interface Candidate extends SnapshotRow {
  rule: 'order_ref' | 'reported';
  payment_id: string;
  payment_token: string;
  payment_recipient: string;
  payment_amount: string;
  payment_tx: string;
  block_number: string;
}

/**
 * Open sessions without a payment, each with the unclaimed ledger rows that may pay it: by
 * `order_ref` first, then by reported transaction (first report first). A payment an operator
 * decided on (src/modules/stray) is theirs: never claimed here. `scope` narrows the open sessions
 * (see {@link claimPayments}); $1 is the network.
 *
 * A session's payments by `order_ref` are read by that index alone (the fenced lateral subquery): on
 * a ledger without statistics yet (a first backfill) the planner otherwise combines it with the
 * network's index, which holds every row, reading the whole ledger's index once per open session
 * (0.2 s for a range of 1 000 sessions, the largest part of its settlement).
 */
const candidatesSql = (scope: string) => `
  with open as (
    select * from sessions s where s.network = $1 and s.status in ('pending', 'processing') and s.payment_id is null${scope}
  )
  select * from (
    select 'order_ref' as rule, p.id as payment_id, p.token as payment_token, p.recipient as payment_recipient,
           p.amount_raw::text as payment_amount, p.tx_hash as payment_tx, p.block_number, p.log_index, ${SNAPSHOT_COLUMNS}
      from open s join lateral (select * from payments p where p.order_ref = s.order_ref offset 0) p
                  on p.network = s.network
     where not exists (select 1 from sessions c where c.payment_id = p.id)
       and not exists (select 1 from payment_resolutions x where x.payment_id = p.id)
    union all
    select 'reported', p.id, p.token, p.recipient, p.amount_raw::text, p.tx_hash, p.block_number, p.log_index, ${SNAPSHOT_COLUMNS}
      from open s join payments p on p.tx_hash = s.reported_tx_hash and p.network = s.network and p.payer = s.wallet
                                 and p.block_number > s.wallet_block
     where not exists (select 1 from sessions c where c.payment_id = p.id)
       and not exists (select 1 from payment_resolutions x where x.payment_id = p.id)
       and not exists (select 1 from sessions r where r.order_ref = p.order_ref)
  ) c
  order by c.rule, c.reported_at nulls last, c.id, c.block_number, c.log_index`;

/**
 * The open sessions a range's payments may pay by their `order_ref` ($2), and those that reported a
 * transaction (a range's payment, or one the ledger already holds: a late report is claimed, and
 * completed at its depth, by the next range as by a whole pass).
 */
const IN_RANGE = ' and (s.order_ref = any($2::text[]) or s.reported_tx_hash is not null)';
const CANDIDATES = candidatesSql('');
/** The candidates of a range (exported for the test that reads its plan); $2 the range's order refs. */
export const RANGE_CANDIDATES = candidatesSql(IN_RANGE);

/**
 * Claims every unclaimed payment that pays an open session; returns the sessions now paid. A session a
 * player action moved in between is matched again from a fresh read with the open sessions locked.
 * Given the `head` of the blocks being followed, a payment already at its tier's depth there (a
 * backfill, a follower catching up) also completes its session, in the same write: `payment_found`
 * then `completed`, two steps of the table with their history rows, exactly as `completeDue` would
 * complete it right after.
 *
 * Given the ledger rows a block range just `recorded`, only the sessions those may pay and those that
 * reported a transaction are read (and, on a retry, locked), each with all its unclaimed payments, so
 * each is decided exactly as by the whole pass: a range of a backfill reads its own sessions, not
 * every open one. Anything else that became claimable (a session whose amount was set after a payment
 * carrying its `order_ref` arrived) is the whole pass's, which the consumer runs after every tick.
 */
export async function claimPayments(
  tx: EntityManager,
  network: SessionNetwork,
  logger: Pick<Logger, 'debug'>,
  head?: Pick<BlockHeader, 'number'>,
  recorded?: readonly Pick<LedgerEntry, 'orderRef' | 'txHash'>[],
): Promise<string[]> {
  const scope = recorded && [recorded.flatMap((e) => (e.orderRef ? [e.orderRef] : []))];
  const params = [network.id, ...(scope ?? [])];
  const paid: string[] = [];
  await untilApplied(`payments claimed on ${network.id}`, async ({ fresh }) => {
    if (fresh) {
      await executeBound(
        tx,
        `select id from sessions s where s.network = $1 and s.status in ('pending', 'processing')
            and s.payment_id is null${scope ? IN_RANGE : ''} order by id for update`,
        params,
      );
    }
    const candidates = await executeBound<Candidate>(tx, scope ? RANGE_CANDIDATES : CANDIDATES, params);
    const rows = matches(network, candidates, logger);
    const now = new Date();
    const steps = rows.map(({ change, row }) => {
      const { session } = change;
      const payment = {
        token: session.token,
        block: Number(row.block_number),
        amountRaw: row.payment_amount,
      };
      if (!head || !atDepth(network, head, payment)) return [change];
      // The second step reads the row as the first leaves it.
      const found = {
        ...session,
        version: session.version + 1,
        status: 'processing',
        step: 'processing',
      } as const;
      return [change, completion(found, row.payment_tx, now)];
    });
    const { applied, stale } = await transitionSessionSteps(tx, steps, 'report');
    paid.push(...applied);
    return stale.map((c) => c.session.id);
  });
  return paid;
}

/**
 * Whether any open session of the network has an unclaimed payment that may pay it: the one read a
 * tick spends when there is nothing to claim (claimPayments locks the open sessions first).
 */
export async function claimable(em: EntityManager, network: Pick<SessionNetwork, 'id'>): Promise<boolean> {
  const [row] = await executeBound<{ any: boolean }>(em, `select exists (${CANDIDATES}) as any`, [
    network.id,
  ]);
  return row?.any === true;
}

/** $1 the network: whether a paid session waits for its depth (an empty block can complete it). */
export const PAID_WAITING = `select 1 from sessions where network = $1 and status = 'processing'
                                and payment_id is not null`;

/**
 * {@link claimable}, and whether a paid session waits for its depth (PAID_WAITING), in one statement:
 * what a tick reads about the network's sessions before deciding on any work.
 */
export async function claimableOrWaiting(
  em: EntityManager,
  network: Pick<SessionNetwork, 'id'>,
): Promise<{ claimable: boolean; waiting: boolean }> {
  const [row] = await executeBound<{ any: boolean; waiting: boolean }>(
    em,
    `select exists (${CANDIDATES}) as any, exists (${PAID_WAITING}) as waiting`,
    [network.id],
  );
  return { claimable: row?.any === true, waiting: row?.waiting === true };
}

/** One claim per session and per payment, in the candidates' order of precedence. */
function matches(network: SessionNetwork, rows: readonly Candidate[], logger: Pick<Logger, 'debug'>) {
  const sessionsDone = new Set<string>();
  const paymentsDone = new Set<string>();
  const changes: { change: SessionChange; row: Candidate }[] = [];
  for (const row of rows) {
    if (sessionsDone.has(row.id) || paymentsDone.has(row.payment_id)) continue;
    const session = snapshotOf(row);
    const why = mismatch(network, session, row);
    if (why) {
      logger.debug('payment does not pay the session', { session: session.id, tx: row.payment_tx, why });
      continue;
    }
    sessionsDone.add(row.id);
    paymentsDone.add(row.payment_id);
    changes.push({
      change: {
        kind: 'payment_found',
        session,
        set: { status: 'processing', step: 'processing', paymentId: Number(row.payment_id) },
        txHash: row.payment_tx,
      },
      row,
    });
  }
  return changes;
}

/** Why a ledger row does not pay this session (D5), or null when it does. */
function mismatch(network: SessionNetwork, session: FollowedSession, row: Candidate): string | null {
  const token = network.tokens.find((t) => t.symbol === session.token);
  if (!token || !session.amount) return 'session has no coin or amount yet';
  if (token.address.toLowerCase() !== row.payment_token) return 'another token';
  if (!session.payee || session.payee !== row.payment_recipient) return 'another recipient';
  const amount = parseUnits(session.amount, token.decimals);
  if (BigInt(row.payment_amount) < amount) return 'less than the session amount';
  // By hash alone, only the exact payment the session asked for (an overpayment is an operator's call).
  if (row.rule === 'reported' && BigInt(row.payment_amount) !== amount) return 'not the session amount';
  return null;
}
