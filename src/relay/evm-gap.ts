import type { NetworkConfig } from '../chains/networks.ts';
import type { StoredTx } from './evm-send.ts';
import { recordSentMany } from './outcomes.ts';
import type { Relayer } from './relayer.ts';
import { LIVE_SENDERS_SQL } from './sender-session.ts';

/**
 * Closing a nonce gap a killed sender left: it stored signed transactions under the wallet lock and
 * died before broadcasting them, so every later nonce of the wallet waits behind them. Any live sender
 * may broadcast those stored bytes at any time: the same bytes have the same hash, so a broadcast twice
 * is harmless, and nothing is signed (signing a *new* transaction at a nonce is what needs the lock).
 * So the next sender of the wallet that stores above such a gap broadcasts them before its own, at once,
 * instead of leaving them to the network leader's watcher (which a killed leader must first hand over).
 * A gap held by a sender still alive is its own to broadcast; it is looked at again shortly, in case
 * that sender dies before it does.
 */

/** A stored, unbroadcast transaction older than this is broadcast whoever holds it (a stuck sender). */
export const STRANDED_MS = 1_500;
/** How often a gap held by a live sender is looked at again, and for how long at most (then: the watcher). */
const RECHECK_MS = 250;
const RECHECK_FOR_MS = 10_000;

interface Row {
  id: string;
  request_id: string;
  wallet: string;
  nonce: string;
  hash: string;
  raw: string;
  held: boolean;
}

/**
 * The wallet's stored, never broadcast calls with a nonce in [from, below), in nonce order: the last
 * transaction of a request still waiting for its first broadcast. `held`: its sender is alive (its
 * session holds the token it claimed with) and stored it less than {@link STRANDED_MS} ago.
 */
async function unsentBelow(
  relayer: Relayer,
  network: NetworkConfig,
  wallet: string,
  from: number,
  below: number,
): Promise<Row[]> {
  return relayer.deps.fork().execute<Row[]>(
    `with live as (${LIVE_SENDERS_SQL})
     select t.id, t.request_id, t.wallet, t.nonce, t.hash, t.raw,
            (r.claimed_by is not null and exists (select 1 from live where live.token = r.claimed_by)
             and t.created_at > now() - make_interval(secs => ?)) as held
       from relay_transactions t join relay_requests r on r.id = t.request_id and r.nonce = t.nonce
      where t.network = ? and t.wallet = ? and t.nonce >= ? and t.nonce < ?
        and t.status = 'signed' and t.kind = 'call' and r.status = 'queued'
        and not exists (select 1 from relay_transactions n where n.request_id = t.request_id and n.id > t.id)
      order by t.nonce`,
    [STRANDED_MS / 1000, network.id, wallet, from, below],
  );
}

/**
 * Broadcasts, in nonce order, the wallet's stored and never broadcast calls in [from, below) whose
 * sender is gone (or stuck), and records them sent. `broadcast` is the caller's broadcast in order
 * (evm-pipeline.ts). Returns whether some are held by a live sender (not touched).
 */
export async function closeGap(
  relayer: Relayer,
  network: NetworkConfig,
  wallet: string,
  from: number,
  below: number,
  broadcast: (stored: StoredTx[]) => Promise<StoredTx[]>,
): Promise<boolean> {
  if (below <= from) return false;
  const rows = await unsentBelow(relayer, network, wallet, from, below);
  const stranded: StoredTx[] = rows
    .filter((r) => !r.held)
    .map((r) => ({
      id: Number(r.id),
      request: { id: Number(r.request_id) },
      wallet: r.wallet,
      nonce: Number(r.nonce),
      hash: r.hash,
      raw: r.raw,
    }));
  if (stranded.length > 0) {
    relayer.deps.logger.info('broadcasting transactions a gone sender stored and never sent', {
      network: network.id,
      nonces: `${stranded[0]!.nonce}..${stranded.at(-1)!.nonce}`,
      count: stranded.length,
    });
    const took = await broadcast(stranded);
    await recordSentMany(
      relayer,
      took.map((t) => ({ id: Number(t.request.id), txId: Number(t.id), hash: t.hash })),
    );
  }
  return rows.some((r) => r.held);
}

/**
 * {@link closeGap} now, and while a live sender holds part of the gap, again every RECHECK_MS (for
 * RECHECK_FOR_MS at most: the watcher has it after that): should that sender die, its bytes go out at
 * the next look. Errors are logged, never thrown: the watcher is the backstop.
 */
export async function closeGapSoon(
  relayer: Relayer,
  network: NetworkConfig,
  wallet: string,
  from: number,
  below: number,
  broadcast: (stored: StoredTx[]) => Promise<StoredTx[]>,
): Promise<void> {
  const until = Date.now() + RECHECK_FOR_MS;
  const look = async (): Promise<void> => {
    try {
      if (!(await closeGap(relayer, network, wallet, from, below, broadcast))) return;
    } catch (error) {
      relayer.deps.logger.warn('closing a nonce gap failed; the watcher sends it', {
        network: network.id,
        error: (error as Error).message,
      });
      return;
    }
    if (Date.now() > until) return;
    setTimeout(() => void look(), RECHECK_MS).unref();
  };
  await look();
}
