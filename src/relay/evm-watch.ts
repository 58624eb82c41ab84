import { LockMode } from '@mikro-orm/core';
import type { EvmClient } from '../chains/evm/index.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import { LeadershipLost } from '../followers/leadership.ts';
import { faultPoint } from '../lib/fault.ts';
import { broadcastInOrder } from './evm-pipeline.ts';
import { replace, unjam } from './evm-replace.ts';
import { broadcastStored, simulate } from './evm-send.ts';
import { abandon, markDone, markDoneMany, recordSentMany } from './outcomes.ts';
import { RelayRequest, RelayTransaction } from './relay.entity.ts';
import { type Relayer, tuningOf } from './relayer.ts';
import { LIVE_SENDERS_SQL, SENDER_HOLDS_SQL } from './sender-session.ts';

/**
 * Watching a network's relays after each follower tick (the leader of the network only): which
 * transaction of each nonce was mined, replacing what is stuck, reconciling a nonce taken by a
 * transaction from outside the service, filling the nonce of an abandoned request, re-broadcasting
 * what a reorganisation or a crash left out, and telling each handler what happened.
 */

/** Requests looked at per tick. */
const LIMIT = 500;

interface Receipt {
  hash: string;
  success: boolean;
  blockNumber: number;
}

/**
 * `final` is the service's final block, as the network's follower decided it this tick (a relay is done
 * only once its block is at or below it); without one (tools, tests) it is read with the same rule.
 */
export async function watchEvm(relayer: Relayer, network: NetworkConfig, final?: number): Promise<void> {
  const wallet = relayer.wallet(network);
  if (!wallet) return;
  const client = relayer.deps.clients.evm(network);
  const em = relayer.deps.fork();
  // One read for both: the requests with a nonce to drive (first: nulls sort last) and those waiting
  // for one, which only a sender can have left stale.
  const open = await em.find(
    RelayRequest,
    {
      network: network.id,
      status: { $in: ['queued', 'submitted', 'mined', 'abandoned'] },
      $or: [{ nonce: { $ne: null } }, { status: 'queued' }],
    },
    { orderBy: { nonce: 'asc' }, limit: LIMIT },
  );
  if (maybeStale(open, LIMIT)) await kickStale(relayer, network);
  const requests = open.filter((r) => r.nonce != null);
  if (requests.length === 0) return;
  const txs = await em.find(
    RelayTransaction,
    { request: { $in: requests.map((r) => r.id) }, status: { $ne: 'dropped' } },
    { orderBy: { id: 'asc' } },
  );
  // The chain's count first, the receipts after: a transaction counted there has its receipt here, so a
  // nonce used by one of ours is never mistaken for one taken by a stranger.
  const [latestHex] = await client.transport.batch([
    { method: 'eth_getTransactionCount', params: [wallet.address, 'latest'] },
  ]);
  if (!latestHex?.ok) return;
  const chainNonce = Number(BigInt(latestHex.result as string));
  // Only a transaction below the wallet's mined count can have a receipt: a burst's unmined ones cost
  // no lookup each tick.
  const receipts = await receiptsOf(
    client,
    txs.filter((t) => t.nonce == null || Number(t.nonce) < chainNonce).map((t) => t.hash),
  );
  const tuning = tuningOf(network);
  const finalBlock = final ?? (await finalizedBlock(client, network));

  const txsOf = new Map<number, RelayTransaction[]>();
  for (const t of txs) {
    const list = txsOf.get(Number(t.request.id)) ?? [];
    list.push(t);
    txsOf.set(Number(t.request.id), list);
  }
  // The common outcome, a call of ours mined and succeeded, is recorded for all requests at once; the
  // rare ones (reverted, fillers, abandoned, taken nonces, stuck) one request at a time below.
  const succeeded: MinedCall[] = [];
  const rest: RelayRequest[] = [];
  for (const request of requests) {
    const tx = (txsOf.get(request.id) ?? []).find((t) => receipts.has(t.hash));
    const receipt = tx && receipts.get(tx.hash);
    if (tx && receipt?.success && tx.kind === 'call' && request.status !== 'abandoned')
      succeeded.push({ request, tx, receipt });
    else rest.push(request);
  }
  try {
    await succeededMany(relayer, succeeded, finalBlock);
  } catch (error) {
    // A watcher that lost the network stops: the new leader's watcher records what this one saw.
    if (error instanceof LeadershipLost) throw error;
    relayer.deps.logger.warn('relay watch failed for mined relays; next tick retries', {
      requests: succeeded.length,
      error: (error as Error).message,
    });
  }
  // Whether the node still has a sent transaction matters only while its nonce is unused.
  const known = await knownToNode(
    client,
    rest.filter((r) => Number(r.nonce) >= chainNonce),
    txsOf,
    tuning,
  );
  // Stored, never broadcast, and no longer their sender's to broadcast: orphans.
  const stranded = await strandedOf(
    relayer,
    rest.flatMap((r) => (txsOf.get(r.id) ?? []).slice(-1).filter((t) => t.status === 'signed')),
  );
  // Whether orphans' calls are still wanted, asked for all of them at once.
  const orphaned = rest.filter((r) => {
    const last = (txsOf.get(r.id) ?? []).at(-1);
    return stranded.has(r.id) && last?.kind === 'call' && r.status !== 'abandoned' && r.status !== 'mined';
  });
  const answers = orphaned.length > 0 ? await relayer.checkMany(orphaned) : [];
  const wanted = new Map(orphaned.map((r, i) => [r.id, answers[i]!]));
  // "Done" may be the orphan's own transaction, mined since its receipt was read above (a slow sender
  // records its broadcast late): asked once more, in one batch, before filling any nonce.
  const doneHashes = orphaned
    .filter((r) => wanted.get(r.id) === 'done')
    .flatMap((r) => (txsOf.get(r.id) ?? []).map((t) => t.hash));
  const minedSince = new Set((await receiptsOf(client, doneHashes)).keys());
  const orphans: RelayTransaction[] = [];
  for (const request of rest) {
    const mine = txsOf.get(request.id) ?? [];
    const mined = mine.map((t) => ({ t, r: receipts.get(t.hash) })).find((x) => x.r);
    try {
      if (mined) await onMined(relayer, network, client, request, mined.t, mined.r!, finalBlock);
      else if (chainNonce > Number(request.nonce)) await nonceTaken(relayer, client, request, mine);
      else
        await keepGoing(relayer, network, client, request, mine, tuning, {
          known,
          wanted,
          orphans,
          minedSince,
          stranded,
        });
    } catch (error) {
      if (error instanceof LeadershipLost) throw error;
      relayer.deps.logger.warn('relay watch failed for a request; next tick retries', {
        request: request.id,
        error: (error as Error).message,
      });
    }
  }
  // Stored and never broadcast (their sender crashed): the same bytes, in nonce order, at once.
  if (orphans.length > 0) {
    const took = await broadcastInOrder(relayer, network, client, orphans);
    faultPoint('relay:after-broadcast');
    await recordSentMany(
      relayer,
      took.map((t) => ({ id: Number(t.request.id), txId: Number(t.id), hash: t.hash })),
    );
  }
}

/**
 * Of stored, never broadcast transactions, the requests of those their sender no longer holds
 * ({@link SENDER_HOLDS_SQL}): it died (no live session holds the token it claimed with), so its bytes go
 * out at the next tick, or it is stuck. One read, only when there are such transactions.
 */
async function strandedOf(relayer: Relayer, signed: readonly RelayTransaction[]): Promise<Set<number>> {
  const ids = signed.map((t) => t.id);
  if (ids.length === 0) return new Set();
  // A read: outside the fence (a process that lost the network only reads harmlessly).
  const rows = await relayer.deps.fork().execute<{ request_id: string }[]>(
    `with live as (${LIVE_SENDERS_SQL})
     select t.request_id from relay_transactions t join relay_requests r on r.id = t.request_id
      where t.id = any(?::bigint[]) and not ${SENDER_HOLDS_SQL}`,
    [`{${ids.join(',')}}`],
  );
  return new Set(rows.map((r) => Number(r.request_id)));
}

interface MinedCall {
  request: RelayRequest;
  tx: RelayTransaction;
  receipt: Receipt;
}

/**
 * Calls of ours mined and succeeded: those not recorded yet are recorded mined in one transaction (the
 * other transactions of their nonces replaced, the handlers told of a hash that changed), and those
 * whose block is final by the service's rule are done once their handler needs nothing more.
 */
async function succeededMany(relayer: Relayer, mined: MinedCall[], final: number): Promise<void> {
  const fresh = mined.filter((m) => m.request.status !== 'mined' || m.request.txHash !== m.tx.hash);
  if (fresh.length > 0) {
    await relayer.deps.fork().transactional(async (em) => {
      const txIds = fresh.map((m) => m.tx.id);
      for (const block of new Set(fresh.map((m) => m.receipt.blockNumber)))
        await em.nativeUpdate(
          RelayTransaction,
          { id: { $in: fresh.filter((m) => m.receipt.blockNumber === block).map((m) => m.tx.id) } },
          { status: 'mined', minedBlock: block },
        );
      await em.nativeUpdate(
        RelayTransaction,
        {
          request: { $in: fresh.map((m) => m.request.id) },
          id: { $nin: txIds },
          status: { $in: ['signed', 'sent'] },
        },
        { status: 'replaced' },
      );
      const rows = await em.find(
        RelayRequest,
        { id: { $in: fresh.map((m) => m.request.id) } },
        { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
      );
      const changed: { request: RelayRequest; txHash: string }[] = [];
      for (const row of rows) {
        const { tx } = fresh.find((m) => m.request.id === row.id)!;
        if (row.txHash !== tx.hash && row.status !== 'abandoned')
          changed.push({ request: row, txHash: tx.hash });
        row.txHash = tx.hash;
        if (row.status !== 'abandoned') row.status = 'mined';
      }
      await em.flush();
      await relayer.onBroadcastMany(em, changed);
    });
  }
  // Watched until its block is final: a reorganisation before that sends the same bytes again.
  const due = mined.filter((m) => m.receipt.blockNumber <= final);
  if (due.length === 0) return;
  const wanted = await relayer.checkMany(due.map((m) => m.request));
  await markDoneMany(
    relayer,
    due.filter((_, i) => wanted[i] === 'done').map((m) => m.request.id),
  );
}

/**
 * Which of the requests' last broadcast transactions the node still knows, asked in one batch: only for
 * those the watcher would otherwise ask one by one (sent, not yet due for a replacement).
 */
async function knownToNode(
  client: EvmClient,
  requests: RelayRequest[],
  txsOf: Map<number, RelayTransaction[]>,
  tuning: ReturnType<typeof tuningOf>,
): Promise<Map<string, boolean>> {
  const hashes = requests.flatMap((r) => {
    const last = (txsOf.get(r.id) ?? []).at(-1);
    if (last?.status !== 'sent' || r.status === 'mined') return [];
    return Date.now() - (last.sentAt ?? last.createdAt).getTime() > tuning.replaceAfterMs ? [] : [last.hash];
  });
  const known = new Map<string, boolean>();
  if (hashes.length === 0) return known;
  const answers = await client.transport.batch(
    hashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })),
  );
  answers.forEach((a, i) => {
    if (a.ok) known.set(hashes[i]!, a.result !== null);
  });
  return known;
}

/**
 * Whether `kickStale` can find anything among the network's open requests a watcher read (at most
 * `limit`): a queued request without a nonce, or a read cut short. Without one the tick skips its
 * UPDATE: only such a request can be stale, and the next tick's read sees any that arrives.
 */
export const maybeStale = (open: readonly RelayRequest[], limit: number) =>
  open.length >= limit || open.some((r) => r.status === 'queued' && r.nonce == null);

/** A queued request untouched this long has lost its job (its worker died holding it): queue it again. */
const STALE_MS = 30_000;

/**
 * Re-adds the job of queued requests whose sender is gone: those a sender claimed and had not signed
 * when its process died (no live session holds its token, sender-session.ts) or its claim ran out (it is
 * stuck), at once, and those nobody has touched for a while. A job held by a killed worker stays locked
 * for hours; adding the same job key again creates a fresh one, and `preserve_run_at` keeps a backoff
 * that is still running.
 */
export async function kickStale(relayer: Relayer, network: NetworkConfig): Promise<void> {
  await relayer.deps.fork().execute(
    `with live as (${LIVE_SENDERS_SQL}),
     expired as (
       update relay_requests set claimed_until = null, claimed_by = null
        where network = ? and status = 'queued' and nonce is null and claimed_until is not null
          and (claimed_until < now()
               or (claimed_by is not null and not exists (select 1 from live where live.token = claimed_by)))
       returning id),
     stale as (
       select id from relay_requests
        where network = ? and status = 'queued' and nonce is null and claimed_until is null
          and updated_at < now() - make_interval(secs => ?))
     select graphile_worker.add_job('relay_request', json_build_object('id', k.id),
              job_key => 'relay_request:' || k.id, job_key_mode => 'preserve_run_at')
       from (select id from expired union select id from stale) k`,
    [network.id, network.id, STALE_MS / 1000],
  );
}

async function receiptsOf(client: EvmClient, hashes: string[]): Promise<Map<string, Receipt>> {
  const out = new Map<string, Receipt>();
  if (hashes.length === 0) return out;
  const answers = await client.transport.batch(
    hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })),
  );
  answers.forEach((a, i) => {
    const r = a.ok ? (a.result as { status?: string; blockNumber?: string } | null) : null;
    if (r?.blockNumber) {
      out.set(hashes[i]!, {
        hash: hashes[i]!,
        success: r.status === '0x1',
        blockNumber: Number(BigInt(r.blockNumber)),
      });
    }
  });
  return out;
}

/** One of the request's transactions is in a block: record it, settle reverts, finish when done. */
async function onMined(
  relayer: Relayer,
  network: NetworkConfig,
  client: EvmClient,
  request: RelayRequest,
  tx: RelayTransaction,
  receipt: Receipt,
  final: number,
): Promise<void> {
  const handler = relayer.handler(request.kind);
  const fresh = request.status !== 'mined' || request.txHash !== tx.hash;
  if (fresh) {
    await relayer.deps.fork().transactional(async (em) => {
      await em.nativeUpdate(
        RelayTransaction,
        { id: tx.id },
        { status: 'mined', minedBlock: receipt.blockNumber },
      );
      await em.nativeUpdate(
        RelayTransaction,
        { request: request.id, id: { $ne: tx.id }, status: { $in: ['signed', 'sent'] } },
        { status: 'replaced' },
      );
      const row = await em.findOneOrFail(RelayRequest, { id: request.id });
      const hashChanged = row.txHash !== tx.hash;
      row.txHash = tx.hash;
      if (row.status !== 'abandoned') row.status = 'mined';
      await em.flush();
      if (hashChanged && row.status !== 'abandoned' && tx.kind === 'call')
        await handler.onBroadcast(em, row, tx.hash);
    });
  }
  if (request.status === 'abandoned' || tx.kind === 'filler') {
    // The nonce is consumed: nothing left to fill. A filler of a request whose call is no longer wanted
    // (done elsewhere) finishes it; one that unjammed a nonce the node refused the call at sends the
    // call again at a fresh nonce.
    await relayer.deps.fork().nativeUpdate(RelayRequest, { id: request.id }, { nonce: null });
    if (request.status === 'abandoned') return;
    if ((await handler.check(request)) === 'done') return markDone(relayer, request.id);
    await relayer.deps.fork().transactional(async (em) => {
      const row = await em.findOneOrFail(RelayRequest, { id: request.id });
      row.status = 'queued';
      row.attempts += 1;
      row.lastError = `nonce ${request.nonce} was filled after the node refused the call; sent again`;
      await em.flush();
      await relayer.now(em, row.id);
    });
    return;
  }
  // A revert is looked at when first seen (a retry at a fresh nonce is safe at once: the router runs an
  // order once) and again once its block is final; it is given up only then, on a final block, since
  // above it a reorganisation may drop the revert and the same signed bytes may still mine and pay.
  if (!receipt.success && (fresh || receipt.blockNumber <= final)) {
    const wallet = relayer.wallet(network)!;
    const replay = await simulate(
      client,
      { from: wallet.address, to: request.to, data: request.data },
      receipt.blockNumber,
    );
    const decision = await handler.onRevert(request, {
      data: replay.ok ? null : replay.data,
      message: replay.ok ? 'reverted on chain' : replay.message,
      mined: true,
    });
    if (decision.action === 'abandon') {
      if (receipt.blockNumber > final) return; // watched until its block is final
      await relayer.deps.fork().nativeUpdate(RelayRequest, { id: request.id }, { nonce: null });
      return abandon(relayer, request.id, decision.reason);
    }
    // The nonce is consumed; a later attempt takes a new one.
    await relayer.deps.fork().transactional(async (em) => {
      const row = await em.findOneOrFail(RelayRequest, { id: request.id });
      row.nonce = null;
      row.status = 'queued';
      row.attempts += 1;
      row.lastError = decision.reason;
      await em.flush();
      await handler.onRetry?.(em, row, decision.reason);
      await relayer.later(em, row);
    });
    return;
  }
  // Watched until its block is final: a reorganisation before that sends the same bytes again.
  if (receipt.success && receipt.blockNumber <= final && (await handler.check(request)) === 'done')
    await markDone(relayer, request.id);
}

/**
 * The newest final block by the service's rule (src/followers/finality.ts): `finalityDepth` behind the
 * head, and never newer than the node's `finalized` block where it serves one.
 */
async function finalizedBlock(client: EvmClient, network: NetworkConfig): Promise<number> {
  const [finalized, latest] = await client.transport.batch([
    { method: 'eth_getBlockByNumber', params: ['finalized', false] },
    { method: 'eth_blockNumber', params: [] },
  ]);
  if (!latest?.ok) return -1;
  const byDepth = Number(BigInt(latest.result as string)) - network.finalityDepth;
  const tagged = finalized?.ok ? (finalized.result as { number?: string } | null)?.number : undefined;
  return tagged ? Math.min(Number(BigInt(tagged)), byDepth) : byDepth;
}

/**
 * The chain used the request's nonce, but for none of our transactions: something outside the
 * service sent from the hot wallet. The request goes back to the queue for a fresh nonce (re-checked
 * and re-simulated, so nothing already done is sent again).
 */
async function nonceTaken(
  relayer: Relayer,
  client: EvmClient,
  request: RelayRequest,
  mine: RelayTransaction[],
): Promise<void> {
  // Once more, now: a receipt of ours that appeared since means the nonce is ours after all.
  if (
    (
      await receiptsOf(
        client,
        mine.map((t) => t.hash),
      )
    ).size > 0
  )
    return;
  relayer.deps.logger.warn('a relay’s nonce was used by another transaction of the hot wallet; re-queued', {
    request: request.id,
    nonce: request.nonce,
  });
  await relayer.deps.fork().transactional(async (em) => {
    await em.nativeUpdate(RelayTransaction, { id: { $in: mine.map((t) => t.id) } }, { status: 'dropped' });
    const row = await em.findOneOrFail(RelayRequest, { id: request.id });
    row.nonce = null;
    if (row.status !== 'abandoned') {
      row.status = 'queued';
      row.lastError = `nonce ${request.nonce} was taken by another transaction; re-queued`;
      await relayer.now(em, row.id);
    }
    await em.flush();
  });
}

/** Not mined yet: broadcast orphans, re-broadcast the forgotten, replace the stuck, fill the abandoned. */
async function keepGoing(
  relayer: Relayer,
  network: NetworkConfig,
  client: EvmClient,
  request: RelayRequest,
  mine: RelayTransaction[],
  tuning: ReturnType<typeof tuningOf>,
  batched: {
    /** Whether the node knows a sent transaction, asked beforehand for many. */
    known?: Map<string, boolean>;
    /** The handler's check of a request, made beforehand for many. */
    wanted?: Map<number, 'send' | 'done'>;
    /** Collects orphans to broadcast together instead of one by one. */
    orphans?: RelayTransaction[];
    /** Hashes found mined after the receipts of the tick were read, asked beforehand for many. */
    minedSince?: Set<string>;
    /** Requests whose stored, never broadcast transaction their sender no longer holds: orphans. */
    stranded: Set<number>;
  },
): Promise<void> {
  const known = batched.known ?? new Map<string, boolean>();
  const last = mine.at(-1);
  if (!last) return;
  if (request.status === 'mined' || mine.some((t) => t.status === 'mined')) {
    // Its block left the chain: waiting again, and the transaction is sent again below if the node
    // no longer has it.
    await relayer.deps.fork().transactional(async (em) => {
      await em.nativeUpdate(
        RelayTransaction,
        { request: request.id, status: 'mined' },
        { status: 'sent', minedBlock: null },
      );
      if (request.status === 'mined')
        await em.nativeUpdate(RelayRequest, { id: request.id }, { status: 'submitted' });
    });
    relayer.deps.logger.warn('a relay’s block left the chain; sending it again', { request: request.id });
    // The same bytes first (the node usually forgets a reorged-out transaction); replacement timing
    // starts again from here.
    const reorged = mine.filter((t) => t.status === 'mined');
    for (const t of reorged) await broadcastStored(relayer, network, client, t);
    await relayer.deps
      .fork()
      .nativeUpdate(RelayTransaction, { id: { $in: reorged.map((t) => t.id) } }, { sentAt: new Date() });
    return;
  }
  const age = Date.now() - (last.sentAt ?? last.createdAt).getTime();
  if (
    last.status === 'signed' &&
    age > tuning.replaceAfterMs &&
    !/insufficient funds/i.test(request.lastError ?? '')
  ) {
    await unjam(relayer, network, client, request, mine, tuning);
    return;
  }
  const stuck = last.status === 'sent' && age > tuning.replaceAfterMs;
  const orphan = last.status === 'signed' && batched.stranded.has(request.id);
  const forgotten =
    !stuck &&
    !orphan &&
    last.status === 'sent' &&
    (known.has(last.hash)
      ? !known.get(last.hash)
      : (await client.transport.request('eth_getTransactionByHash', [last.hash])) === null);
  if (!stuck && !orphan && !forgotten && !(request.status === 'abandoned' && last.kind !== 'filler')) return;
  // Before sending anything again: is the call still wanted? (The order may have executed through
  // another transaction; then only the nonce is left to fill, with a cheap self-transfer.)
  const filler =
    last.kind === 'filler' ||
    request.status === 'abandoned' ||
    (batched.wanted?.get(request.id) ?? (await relayer.handler(request.kind).check(request))) === 'done';
  // Done by the chain's reading: if by one of our own transactions, mined since this tick read its
  // receipts, there is no nonce to fill; the next tick records it mined.
  if (filler && last.kind !== 'filler' && request.status !== 'abandoned') {
    const hashes = mine.map((t) => t.hash);
    const minedSince = batched.wanted?.has(request.id)
      ? hashes.some((h) => batched.minedSince?.has(h))
      : (await receiptsOf(client, hashes)).size > 0;
    if (minedSince) return;
  }
  if (stuck || (filler && last.kind !== 'filler')) {
    await replace(relayer, network, client, request, last, tuning, filler);
    return;
  }
  // Orphans of a crashed sender go out together, in nonce order, after the loop.
  if (batched.orphans && orphan && last.kind === 'call') batched.orphans.push(last);
  else await broadcastStored(relayer, network, client, last);
}
