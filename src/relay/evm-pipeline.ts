import type { Wallet } from 'ethers';
import type { EvmClient } from '../chains/evm/index.ts';
import { keccakHex } from '../chains/evm/keccak.ts';
import { isAlreadyKnown } from '../chains/evm/tx-send.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import type { EntityManager } from '../db/orm.ts';
import { faultPoint } from '../lib/fault.ts';
import { strandedBelow, watchGap } from './evm-gap.ts';
import {
  broadcastOnly,
  broadcastStored,
  currentFees,
  GAS_MARGIN_PERCENT,
  type StoredTx,
  signCall,
  simulateMany,
} from './evm-send.ts';
import { abandon, deadlineReason, markDone, recordSentMany, retryLater } from './outcomes.ts';
import { RelayRequest, RelayTransaction } from './relay.entity.ts';
import type { Relayer } from './relayer.ts';
import { enterStage, noteStored, storedNext } from './send-lanes.ts';
import { LIVE_SENDERS_SQL } from './sender-session.ts';

/**
 * The `relay_request` job on an EVM network, pipelined per relayer wallet: the job takes its own
 * request and the others queued for the same wallet (up to {@link MAX_PIPELINE}), so a burst of
 * payouts is many transactions of one wallet in one block, in nonce order, without a round trip each:
 *
 * 1. Claim: one statement marks the requests this sender takes (`claimed_until`), so concurrent senders
 *    split the queue. The claim only shares work; it decides nothing about nonces.
 * 2. Outside any transaction: which are still wanted (one read, one batch of chain reads per kind),
 *    one batch of simulations, fees, the wallet's balance and its pending count. A revert goes to the
 *    request's handler (retry later, or abandon).
 * 3. One short transaction under the relayer wallet's row lock: the requests are re-read locked and only
 *    those still without a nonce get the next nonces, in id order; their signed bytes are stored, the
 *    counter moves on, and the jobs of the others are dropped (this send is theirs).
 * 4. Broadcast the stored bytes in nonce order (JSON-RPC batches), then record them sent in one
 *    transaction. A crash before or after this step is resumed by broadcasting the same stored bytes
 *    again (the watcher, evm-watch.ts), never by signing anew.
 */

/** Requests one send takes at most. */
export const MAX_PIPELINE = 200;
/**
 * How long a sender holds what it claimed, at most: one whose process died is taken over at once
 * (sender-session.ts), one alive but stuck after this (evm-watch.ts).
 */
export const CLAIM_SECONDS = 5;
/** Raw transactions per JSON-RPC batch when broadcasting. */
const BROADCAST_BATCH = 100;

export async function sendEvm(relayer: Relayer, network: NetworkConfig, id: number): Promise<void> {
  const wallet = relayer.wallet(network);
  if (!wallet) throw new Error(`network ${network.id} has no relayerPrivateKey: nothing can relay there`);
  const client = relayer.deps.clients.evm(network);
  const em = relayer.deps.fork();
  const request = await em.findOne(RelayRequest, { id });
  if (!request || request.status === 'done' || request.status === 'mined') return;
  if (request.nonce !== null && request.nonce !== undefined) {
    // Already signed: broadcast what is stored (a retried job after a crash), nothing new.
    const stored = await em.findOne(
      RelayTransaction,
      { request: id, status: { $in: ['signed', 'sent'] } },
      { orderBy: { id: 'desc' } },
    );
    if (stored) await broadcastStored(relayer, network, client, stored);
    return;
  }
  if (request.status === 'abandoned') return;
  // Its own request may be another sender's already (that send is its); whatever else this claim took
  // is this job's to send now: left claimed and unsent, it would wait for the claim to run out.
  // A queue longer than one send takes goes on at once: its requests may share this job (request.ts).
  for (;;) {
    // One send of the wallet asks at a time in this process, and one signs (send-lanes.ts): the jobs
    // arriving meanwhile wait, and the first of them then takes everything queued.
    const stages: Stages = { ask: await enterStage(relayer, network.id, 'ask') };
    try {
      if (!(await claimAndSend(relayer, network, wallet, client, em, id, stages))) return;
    } finally {
      stages.ask();
      stages.sign?.();
    }
  }
}

/** The stages a send holds (send-lanes.ts), each left by calling it (again: harmless). */
interface Stages {
  ask: () => void;
  sign?: () => void;
}

async function claimAndSend(
  relayer: Relayer,
  network: NetworkConfig,
  wallet: Wallet,
  client: EvmClient,
  em: EntityManager,
  id: number,
  stages: Stages,
): Promise<boolean> {
  const claimed = await claim(relayer, em, network, id);
  if (claimed.length === 0) return false;
  let failed = true;
  try {
    await sendClaimed(relayer, network, wallet, client, id, claimed, stages);
    failed = false;
  } finally {
    await em.execute(
      'update relay_requests set claimed_until = null, claimed_by = null where id = any(?::bigint[]) and claimed_until is not null',
      [`{${claimed.join(',')}}`],
    );
    // The others' jobs have run already (finding their requests claimed): a send that failed before
    // signing them queues them again (after the release, or their jobs would find them claimed), instead
    // of leaving them to the watcher's sweep of stale requests. Its own job is retried by the worker.
    if (failed)
      await em.execute(
        `select graphile_worker.add_job('relay_request', json_build_object('id', r.id),
                  job_key => 'relay_request:' || r.id, job_key_mode => 'preserve_run_at')
           from relay_requests r
          where r.id = any(?::bigint[]) and r.id <> ? and r.status = 'queued' and r.nonce is null`,
        [`{${claimed.join(',')}}`, id],
      );
  }
  return claimed.length >= MAX_PIPELINE;
}

/**
 * Claims `id` and the other requests of the network that wait for their first send, oldest first. A
 * request in a retry's backoff (attempts > 0) is left to its own job, which runs it when the backoff
 * ends. Row locks are held for this one statement only; claimed rows of another sender are skipped,
 * unless that sender is gone: its lease ran out, or its process died (no live session holds its token).
 */
async function claim(
  relayer: Relayer,
  em: EntityManager,
  network: NetworkConfig,
  id: number,
): Promise<number[]> {
  const token = await relayer.session.token();
  const rows = await em.execute<{ id: string }[]>(
    `with live as (${LIVE_SENDERS_SQL})
     update relay_requests r set claimed_until = now() + make_interval(secs => ?), claimed_by = ?
      where r.id in (
        select q.id from relay_requests q
         where q.network = ? and q.status = 'queued' and q.nonce is null and (q.id = ? or q.attempts = 0)
           and (q.claimed_until is null or q.claimed_until < now()
                or (q.claimed_by is not null and not exists (select 1 from live where live.token = q.claimed_by)))
         order by q.id = ? desc, q.id
         limit ? for update skip locked)
      returning r.id`,
    [CLAIM_SECONDS, token, network.id, id, id, MAX_PIPELINE],
  );
  return rows.map((r) => Number(r.id));
}

async function sendClaimed(
  relayer: Relayer,
  network: NetworkConfig,
  wallet: Wallet,
  client: EvmClient,
  own: number,
  ids: number[],
  stages: Stages,
): Promise<void> {
  const em = relayer.deps.fork();
  // Where a send's time goes (debug log): ms from its start to the end of each step.
  const start = performance.now();
  const ms: Record<string, number> = {};
  const step = (name: string) => {
    ms[name] = Math.round(performance.now() - start);
  };
  const requests = await em.find(RelayRequest, { id: { $in: ids } }, { orderBy: { id: 'asc' } });
  const expired = (r: RelayRequest) => Boolean(r.deadline && Date.now() / 1000 > r.deadline);
  const current = requests.filter((r) => !expired(r));
  // Everything the send needs to know, asked side by side (one wait, not one per question): whether
  // each request is still wanted, its simulation (of those within their deadline), the fees, the
  // wallet's balance and pending count, and the nonce its row will most likely give. A simulation of a
  // request that turns out done is simply not used.
  const [wanted, sims, fees, balance, pending, [row]] = await Promise.all([
    relayer.checkMany(requests),
    simulateMany(
      client,
      current.map((r) => ({ from: wallet.address, to: r.to, data: r.data })),
    ),
    currentFees(client),
    client.getNativeBalance(wallet.address),
    client.transport.request<string>('eth_getTransactionCount', [wallet.address, 'pending']),
    em.execute<{ next_nonce: string }[]>(
      'select next_nonce from relayer_wallets where network = ? and address = ?',
      [network.id, wallet.address],
    ),
  ]);
  step('asked');
  const simOf = new Map(current.map((r, i) => [r.id, sims[i]!]));
  const sendable: { request: RelayRequest; gasLimit: bigint }[] = [];
  for (const [i, request] of requests.entries()) {
    if (wanted[i] === 'done') {
      await markDone(relayer, request.id);
      continue;
    }
    const sim = simOf.get(request.id);
    if (!sim) {
      await abandon(relayer, request.id, deadlineReason(request.lastError));
      continue;
    }
    if (sim.ok) {
      sendable.push({ request, gasLimit: (sim.gas * (100n + GAS_MARGIN_PERCENT)) / 100n });
      continue;
    }
    const decision = await relayer
      .handler(request.kind)
      .onRevert(request, { data: sim.data, message: sim.message, mined: false });
    if (decision.action === 'abandon') await abandon(relayer, request.id, decision.reason);
    else await retryLater(relayer, request.id, decision.reason);
  }
  if (sendable.length === 0) return;
  // As many as the wallet can pay gas for, oldest first; the rest wait for it to be funded.
  let cost = 0n;
  const affordable = sendable.filter((s) => {
    if (cost + s.gasLimit * fees.maxFee > balance) return false;
    cost += s.gasLimit * fees.maxFee;
    return true;
  });
  if (affordable.length < sendable.length) {
    const need = sendable.reduce((sum, s) => sum + s.gasLimit * fees.maxFee, 0n);
    await relayer.outOfGas(network, wallet.address, `needs ${need} wei for gas, holds ${balance}`);
    for (const s of sendable.filter((x) => !affordable.includes(x)))
      await retryLater(relayer, s.request.id, 'relayer wallet out of gas');
  } else await relayer.gasRestored(network, wallet.address);
  if (affordable.length === 0) return;
  const chainNonce = Number(BigInt(pending));

  // The next send of this process may ask now; this one signs once the one before it has stored.
  stages.sign = await enterStage(relayer, network.id, 'sign');
  stages.ask();
  // Signed ahead at the nonces the wallet row will most likely give (signing is CPU, kept out of the
  // lock): after the last ones this process stored, which the row read above may not show yet. Signed
  // again inside when another sender moved the counter meanwhile.
  const guess = Math.max(Number(row?.next_nonce ?? 0), chainNonce, storedNext(relayer, network.id));
  const sign = (list: typeof affordable, first: number) =>
    Promise.all(list.map((s, i) => signCall(wallet, network, s.request, first + i, s.gasLimit, fees)));
  let signed = await sign(affordable, guess);
  step('signed');
  let signedAgain = false;

  const stored = await em.fork().transactional(async (tx) => {
    await tx.execute(
      `insert into relayer_wallets (network, address, next_nonce, updated_at) values (?, ?, ?, now())
       on conflict (network, address) do nothing`,
      [network.id, wallet.address, chainNonce],
    );
    const [locked] = await tx.execute<{ next_nonce: string }[]>(
      'select next_nonce from relayer_wallets where network = ? and address = ? for update',
      [network.id, wallet.address],
    );
    // Plain statements under the lock, no entities: the lock is held for as short as the writes take.
    const fresh = await tx.execute<{ id: string }[]>(
      `select id from relay_requests
        where id = any(?::bigint[]) and nonce is null and status = 'queued' order by id for update`,
      [`{${affordable.map((s) => s.request.id).join(',')}}`],
    );
    const freshIds = new Set(fresh.map((r) => Number(r.id)));
    const going = affordable.filter((s) => freshIds.has(Number(s.request.id)));
    // Transactions sent from the wallet outside the service move the chain's count past ours.
    const first = Math.max(Number(locked!.next_nonce), chainNonce);
    if (first !== guess || going.length !== affordable.length) {
      signed = await sign(going, first);
      signedAgain = true;
    }
    const rows = going.map((s, i) => ({
      request_id: Number(s.request.id),
      nonce: first + i,
      hash: keccakHex(signed[i]!),
      raw: signed[i]!,
      gas_limit: s.gasLimit.toString(),
    }));
    // The transactions and their requests' nonces in one statement (the ORM's flush was several, and
    // CPU under the lock).
    const inserted =
      rows.length === 0
        ? []
        : await tx.execute<{ id: string; request_id: string }[]>(
            `with v as (
               select * from json_to_recordset(?::json)
                 as v(request_id bigint, nonce bigint, hash text, raw text, gas_limit numeric)),
             ins as (
               insert into relay_transactions
                 (request_id, network, wallet, nonce, kind, hash, raw, gas_limit, max_fee, priority_fee, status, created_at)
               select v.request_id, ?, ?, v.nonce, 'call', v.hash, v.raw, v.gas_limit, ?::numeric, ?::numeric, 'signed', now()
                 from v
               returning id, request_id),
             upd as (
               update relay_requests r set nonce = v.nonce, updated_at = now() from v where r.id = v.request_id)
             select id, request_id from ins`,
            [
              JSON.stringify(rows),
              network.id,
              wallet.address,
              fees.maxFee.toString(),
              fees.priorityFee?.toString() ?? null,
            ],
          );
    const idOf = new Map(inserted.map((r) => [Number(r.request_id), Number(r.id)]));
    const saved: StoredTx[] = rows.map((r) => ({
      id: idOf.get(r.request_id)!,
      request: { id: r.request_id },
      wallet: wallet.address,
      nonce: r.nonce,
      hash: r.hash,
      raw: r.raw,
    }));
    await tx.execute(
      'update relayer_wallets set next_nonce = ?, updated_at = now() where network = ? and address = ?',
      [first + going.length, network.id, wallet.address],
    );
    // This send is theirs now: their own jobs (not yet running) have nothing left to do.
    const others = going.map((s) => Number(s.request.id)).filter((x) => x !== own);
    if (others.length > 0)
      await tx.execute(
        `select graphile_worker.remove_job('relay_request:' || x) from unnest(?::bigint[]) x`,
        [`{${others.join(',')}}`],
      );
    return saved;
  });
  step('stored');
  noteStored(relayer, network.id, Math.max(0, ...stored.map((t) => Number(t.nonce) + 1)));
  faultPoint('relay:after-sign');
  // Below these, nonces the node had not seen when asked: most likely another sender's, on their way;
  // but a sender killed before broadcasting leaves them stored and unsent, and nothing of the wallet
  // mines until they are sent. Those are looked for while this send's go out, sent right after them
  // (a node keeps a sender's transactions above a gap until it closes), and recorded with them (evm-gap.ts).
  const lowest = stored.length > 0 ? Number(stored[0]!.nonce) : chainNonce;
  // A failed look leaves the gap to the watcher; this send's own are out, and get recorded.
  const looking = strandedBelow(relayer, network, wallet.address, chainNonce, lowest).catch((error) => {
    relayer.deps.logger.warn('looking for a nonce gap failed; the watcher sends it', {
      network: network.id,
      error: (error as Error).message,
    });
    return { stranded: [], held: false };
  });
  const sent = await broadcastInOrder(relayer, network, client, stored);
  step('broadcast');
  const gap = await looking;
  const took = [
    ...(gap.stranded.length > 0 ? await broadcastInOrder(relayer, network, client, gap.stranded) : []),
    ...sent,
  ];
  // Broadcast in nonce order across sends too: the next one's transactions follow these.
  stages.sign();
  step('gap');
  faultPoint('relay:after-broadcast');
  await recordSentMany(
    relayer,
    took.map((t) => ({ id: Number(t.request.id), txId: Number(t.id), hash: t.hash })),
  );
  // Part of the gap another live sender holds: looked at again shortly, should it die first.
  if (gap.held)
    watchGap(relayer, network, wallet.address, chainNonce, lowest, (list) =>
      broadcastInOrder(relayer, network, client, list),
    );
  step('recorded');
  relayer.deps.logger.debug('relay send', {
    network: network.id,
    claimed: ids.length,
    sent: took.length,
    signedAgain,
    ms,
  });
}

/**
 * Broadcasts stored transactions of one wallet in nonce order, a JSON-RPC batch at a time; one the
 * node refused in the batch is sent again on its own, which reads the refusal (evm-send.ts). Returns
 * those the node took, for the caller to record.
 */
export async function broadcastInOrder<T extends StoredTx>(
  relayer: Relayer,
  network: NetworkConfig,
  client: EvmClient,
  stored: readonly T[],
): Promise<T[]> {
  const ordered = [...stored].sort((a, b) => Number(a.nonce) - Number(b.nonce));
  const took: T[] = [];
  for (let at = 0; at < ordered.length; at += BROADCAST_BATCH) {
    const part = ordered.slice(at, at + BROADCAST_BATCH);
    const answers = await client.transport.batch(
      part.map((t) => ({ method: 'eth_sendRawTransaction', params: [t.raw] })),
    );
    for (const [i, t] of part.entries()) {
      const a = answers[i]!;
      // Bytes the node has already (another sender, or the watcher, broadcast them too) are taken as
      // they are: sent on their own again they would only cost a decode of the transaction each.
      if (a.ok ? String(a.result).toLowerCase() === t.hash : isAlreadyKnown(a.error.message)) took.push(t);
      else if (await broadcastOnly(relayer, network, client, t)) took.push(t);
    }
  }
  return took;
}
