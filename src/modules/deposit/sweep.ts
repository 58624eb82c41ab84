import { Interface, keccak256, id as topicOf, toUtf8Bytes } from 'ethers';
import { abi } from '../../chains/contracts.ts';
import type { EvmLog } from '../../chains/evm/index.ts';
import type { EntityManager } from '../../db/orm.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { requestRelay, reviveRelay } from '../../relay/request.ts';
import type { RelayHandler } from '../../relay/types.ts';
import type { DepositNetwork } from './deposit.chain.ts';
import { Sweep, type SweepOutcome } from './deposit.entity.ts';
import { holdFailed, releaseHolds, sweepFailure } from './sweep-hold.ts';

/**
 * The sweeper: credited deposits move from their forwarders to the settlement wallets they are bound
 * to through `ForwarderFactory.sweepMany`, relayed by the shared transaction submitter (kind `sweep`).
 * A sweep carries up to {@link MAX_SWEEP_ITEMS} (forwarder, token) pairs whose credited, unswept
 * balance reached the token's minimum; each moves exactly what its deposits brought in and pays the
 * factory's fee once per deposit, so a deposit arriving meanwhile stays for the next sweep, and the
 * factory settles each item of a sweep once however often its transaction is sent. Outcomes come from the factory's `Swept` / `SweepFailed` events of the sweep's
 * transaction: final ones mark the deposits swept, a failed pair goes back to the pool and backs off
 * (parked after repeated failures, sweep-hold.ts), a forwarder found emptied outside the service is
 * marked swept by that, and a sweep given up (its relay abandoned) puts all its deposits back. Nothing
 * here touches what was credited.
 */

/** Pairs per `sweepMany`: a first sweep deploys each clone, about 130k gas a pair. */
export const MAX_SWEEP_ITEMS = 40;
/** How long a sweep's relay keeps trying before it is given up (and its deposits swept anew). */
export const SWEEP_RELAY_SECONDS = 6 * 3_600;

const factory = new Interface(abi('ForwarderFactory'));
export const SWEPT_TOPIC = topicOf('Swept(address,address,address,uint256,uint256)');
export const SWEEP_FAILED_TOPIC = topicOf('SweepFailed(address,address,bytes)');

interface Candidate {
  address_id: string;
  address: string;
  wallet: string;
  player_key: string;
  token: string;
  token_address: string;
  deposits: number;
  credited: string;
  /** What the deposits brought in (credited plus fees): exactly what the sweep moves. */
  amount: string;
}

/**
 * Starts a sweep of the network when none is open and some forwarder's credited, unswept balance of a
 * token reached its minimum: the sweep row, its deposits' claim and its relay request commit together.
 * Returns the sweep id, or null when there was nothing to do.
 */
export async function startSweep(
  em: EntityManager,
  network: DepositNetwork,
  now: Date,
  log: Logger,
): Promise<string | null> {
  const [open] = await em.execute<{ id: string }[]>(
    `select id from sweeps where network = ? and status in ('queued', 'mined') limit 1`,
    [network.id],
  );
  if (open) return null;
  const minimums = network.tokens.map((t) => ({ token: t.address, minimum: t.sweepMinimumRaw.toString() }));
  // Pairs whose sweeps keep failing wait out their backoff, parked ones wait for an operator, and
  // healthy pairs come first: failing ones never take the places of sweeps that would succeed.
  const candidates = await em.execute<Candidate[]>(
    `select d.address_id::text, a.address, a.wallet, a.player_key, d.token, d.token_address,
            count(*)::int as deposits, sum(d.credited_raw)::text as credited, sum(d.amount_raw)::text as amount
       from deposits d
       join deposit_addresses a on a.id = d.address_id
       join jsonb_to_recordset(?::jsonb) as m(token text, minimum numeric) on m.token = d.token_address
       left join sweep_holds h on h.address_id = d.address_id and h.token_address = d.token_address
      where d.network = ? and d.status = 'credited' and d.sweep_id is null
        and (h.id is null or (h.parked_at is null and (h.retry_at is null or h.retry_at <= ?)))
      group by d.address_id, a.address, a.wallet, a.player_key, d.token, d.token_address, m.minimum, h.failures
     having sum(d.credited_raw) >= greatest(m.minimum, 1)
      order by coalesce(h.failures, 0), min(d.block_number)
      limit ?`,
    [JSON.stringify(minimums), network.id, now, MAX_SWEEP_ITEMS],
  );
  if (candidates.length === 0) return null;
  const id = newId('sweep');
  const claimed = await em.execute<{ id: string }[]>(
    `update deposits d set sweep_id = ?
       from jsonb_to_recordset(?::jsonb) as c(address_id bigint, token_address text)
      where d.address_id = c.address_id and d.token_address = c.token_address
        and d.network = ? and d.status = 'credited' and d.sweep_id is null
      returning d.id`,
    [
      id,
      JSON.stringify(candidates.map((c) => ({ address_id: c.address_id, token_address: c.token_address }))),
      network.id,
    ],
  );
  const data = factory.encodeFunctionData('sweepMany', [
    candidates.map((c) => [c.wallet, c.player_key, c.token_address, c.deposits, c.amount, sweepKey(id)]),
  ]);
  em.create(Sweep, { id, network: network.id, items: candidates.length, status: 'queued' });
  await em.flush();
  await requestRelay(em, {
    kind: 'sweep',
    subjectId: id,
    network: network.id,
    to: network.site.factory,
    data,
    deadline: Math.floor(now.getTime() / 1000) + SWEEP_RELAY_SECONDS,
  });
  log.info('sweep queued', { sweep: id, forwarders: candidates.length, deposits: claimed.length });
  return id;
}

/** The sweep's id on chain: the factory settles each (id, forwarder, token) item once. */
export const sweepKey = (id: string) => keccak256(toUtf8Bytes(id));

/**
 * The factory's events of a chunk: a sweep whose transaction they belong to is `mined` with what each
 * forwarder did (a forwarder of the call without an event moved nothing: its balance did not exceed
 * the fee, or someone swept it first).
 */
export async function recordSweeps(em: EntityManager, network: DepositNetwork, logs: readonly EvmLog[]) {
  const events = logs.filter(
    (l) =>
      l.address.toLowerCase() === network.site.factory.toLowerCase() &&
      (l.topics[0] === SWEPT_TOPIC || l.topics[0] === SWEEP_FAILED_TOPIC),
  );
  if (events.length === 0) return;
  const hashes = [...new Set(events.map((e) => e.transactionHash.toLowerCase()))];
  const sweeps = await em.execute<{ id: string; hash: string }[]>(
    `select s.id, t.hash from relay_transactions t
       join relay_requests r on r.id = t.request_id and r.kind = 'sweep'
       join sweeps s on s.id = r.subject_id
      where t.hash = any(?::text[]) and s.network = ?`,
    [`{${hashes.join(',')}}`, network.id],
  );
  for (const { id, hash } of sweeps) {
    const mine = events.filter((e) => e.transactionHash.toLowerCase() === hash);
    const outcomes: SweepOutcome[] = mine.map((e) => {
      const parsed = factory.parseLog(e)!;
      const base = {
        address: String(parsed.args.forwarder).toLowerCase(),
        token: String(parsed.args.token).toLowerCase(),
      };
      return parsed.name === 'Swept'
        ? { ...base, amountRaw: String(parsed.args.amount), feeRaw: String(parsed.args.fee) }
        : { ...base, amountRaw: '0', feeRaw: '0', error: String(parsed.args.reason) };
    });
    await em.execute(
      `update sweeps set status = 'mined', tx_hash = ?, mined_block = ?, outcomes = ?::jsonb, updated_at = now()
        where id = ? and status in ('queued', 'mined')`,
      [hash, mine[0]!.blockNumber, JSON.stringify(outcomes), id],
    );
  }
}

/**
 * Mined sweeps whose block is final are done: their deposits are swept, except those of a forwarder
 * whose sweep failed. A forwarder found empty (the factory's own `sweep`, outside the service, moved
 * its balance to the settlement wallet: the merchant's way out) has its deposits marked swept
 * `outside`, never retried; any other failure puts the deposits back in the pool and backs the pair off
 * (sweep-hold.ts). Every forwarder of the call is deployed now.
 */
export async function finishSweeps(em: EntityManager, network: DepositNetwork, finalized: number, now: Date) {
  const done = await em.execute<{ id: string; outcomes: SweepOutcome[] }[]>(
    `update sweeps set status = 'done', updated_at = now()
      where network = ? and status = 'mined' and mined_block <= ? returning id, outcomes`,
    [network.id, finalized],
  );
  for (const sweep of done) {
    const failures = sweep.outcomes
      .filter((o) => o.error !== undefined)
      .map((o) => ({ ...o, ...sweepFailure(o.error!, o.token) }));
    const pairs = (drained: boolean) =>
      JSON.stringify(
        failures.filter((f) => f.drained === drained).map((f) => ({ address: f.address, token: f.token })),
      );
    await em.execute(
      `update deposits d set swept_at = ?, swept_by = 'outside'
         from deposit_addresses a, jsonb_to_recordset(?::jsonb) as f(address text, token text)
        where d.sweep_id = ? and a.id = d.address_id and a.address = f.address and d.token_address = f.token`,
      [now, pairs(true), sweep.id],
    );
    const back = await em.execute<{ address_id: string; token_address: string; address: string }[]>(
      `update deposits d set sweep_id = null
         from deposit_addresses a, jsonb_to_recordset(?::jsonb) as f(address text, token text)
        where d.sweep_id = ? and a.id = d.address_id and a.address = f.address and d.token_address = f.token
        returning d.address_id::text, d.token_address, a.address`,
      [pairs(false), sweep.id],
    );
    const held = new Map(back.map((r) => [`${r.address_id}:${r.token_address}`, r]));
    await holdFailed(
      em,
      network.id,
      [...held.values()].map((r) => {
        const f = failures.find((x) => x.token === r.token_address && x.address === r.address)!;
        return { addressId: r.address_id, token: r.token_address, error: f.text };
      }),
      now,
    );
    await em.execute(
      `update deposits set swept_at = ?, swept_by = 'service' where sweep_id = ? and swept_at is null`,
      [now, sweep.id],
    );
    await releaseHolds(em, sweep.id);
    await em.execute(
      `update deposit_addresses set deployed = true
        where id in (select address_id from deposits where sweep_id = ?) and not deployed`,
      [sweep.id],
    );
  }
}

/** A sweep's block left the chain: it waits for its transaction again, which is sent again. */
export async function forgetSweeps(em: EntityManager, network: DepositNetwork, ancestor: number) {
  const back = await em.execute<{ id: string }[]>(
    `update sweeps set status = 'queued', mined_block = null, outcomes = null, updated_at = now()
      where network = ? and status = 'mined' and mined_block > ? returning id`,
    [network.id, ancestor],
  );
  await reviveRelay(
    em,
    back.map((s) => ({ kind: 'sweep' as const, subjectId: s.id })),
  );
}

/** Sweeps as the transaction submitter sees them (src/relay/types.ts). */
export function sweepRelayHandler(deps: { fork: () => EntityManager; logger: Logger }): RelayHandler {
  const release = async (tx: EntityManager, id: string, reason: string) => {
    await tx.execute(
      `update sweeps set status = 'failed', last_error = ?, updated_at = now() where id = ? and status = 'queued'`,
      [reason.slice(0, 2000), id],
    );
    await tx.execute(`update deposits set sweep_id = null where sweep_id = ? and swept_at is null`, [id]);
  };
  return {
    async check(request) {
      // Mined is as good as done for the sender: a reorganisation that takes it away revives the relay.
      const sweep = await deps.fork().findOne(Sweep, { id: request.subjectId });
      return sweep?.status === 'queued' ? 'send' : 'done';
    },
    async onRevert(request, revert) {
      // sweepMany reverts only as a whole (a forwarder's own failure is an event): the relayer is not an
      // allowed sweeper, or gas. Either can be fixed by an operator; the relay retries until its deadline.
      deps.logger.warn('sweep reverts', { sweep: request.subjectId, message: revert.message.slice(0, 300) });
      return { action: 'retry', reason: revert.message.slice(0, 500) };
    },
    async onBroadcast(tx, request, txHash) {
      await tx.execute(`update sweeps set tx_hash = ?, updated_at = now() where id = ?`, [
        txHash,
        request.subjectId,
      ]);
    },
    async onAbandon(tx, request, reason) {
      await release(tx, request.subjectId, reason);
    },
  };
}
