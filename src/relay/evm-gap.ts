import type { NetworkConfig } from '../chains/networks.ts';
import type { StoredTx } from './evm-send.ts';
import { recordSentMany } from './outcomes.ts';
import type { Relayer } from './relayer.ts';
import { LIVE_SENDERS_SQL, SENDER_HOLDS_SQL } from './sender-session.ts';

/**
 * Closing a nonce gap a killed sender left: it stored signed transactions under the wallet lock and
 * died before broadcasting them, so every later nonce of the wallet waits behind them. Any live sender
 * may broadcast those stored bytes at any time: the same bytes have the same hash, so a broadcast twice
 * is harmless, and nothing is signed (signing a *new* transaction at a nonce is what needs the lock).
 * So the next sender of the wallet that stores above such a gap broadcasts them with its own, at once,
 * instead of leaving them to the network leader's watcher (which a killed leader must first hand over).
 * A gap another live sender holds is its own to broadcast; it is looked at again shortly, in case that
 * sender dies before it does.
 */

/** How often a gap another live sender holds is looked at again, and for how long at most (then: the watcher). */
const RECHECK_MS = 250;
const RECHECK_FOR_MS = 10_000;

interface Row {
  id: string;
  request_id: string;
  wallet: string;
  nonce: string;
  hash: string;
  raw: string;
  mine: boolean;
  held: boolean;
}

/** What {@link strandedBelow} found. */
export interface Gap {
  /** To broadcast now, in nonce order: their sender is gone, or stuck. */
  stranded: StoredTx[];
  /** Some of the gap another live sender holds (its own to broadcast). */
  held: boolean;
}

/**
 * The wallet's stored, never broadcast calls with a nonce in [from, below): the last transaction of a
 * request still waiting for its first broadcast. Held (left alone): those this process claimed (it
 * broadcasts its own in order; they may be out and not yet recorded), and those another sender still
 * holds ({@link SENDER_HOLDS_SQL}: stored moments ago by a sender not known gone).
 */
export async function strandedBelow(
  relayer: Relayer,
  network: NetworkConfig,
  wallet: string,
  from: number,
  below: number,
): Promise<Gap> {
  if (below <= from) return { stranded: [], held: false };
  const own = (await relayer.session.token()) ?? 0;
  const rows = await relayer.deps.fork().execute<Row[]>(
    `with live as (${LIVE_SENDERS_SQL})
     select t.id, t.request_id, t.wallet, t.nonce, t.hash, t.raw,
            coalesce(r.claimed_by = ?, false) as mine, ${SENDER_HOLDS_SQL} as held
       from relay_transactions t join relay_requests r on r.id = t.request_id and r.nonce = t.nonce
      where t.network = ? and t.wallet = ? and t.nonce >= ? and t.nonce < ?
        and t.status = 'signed' and t.kind = 'call' and r.status = 'queued'
        and not exists (select 1 from relay_transactions n where n.request_id = t.request_id and n.id > t.id)
      order by t.nonce`,
    [own, network.id, wallet, from, below],
  );
  const stranded = rows
    .filter((r) => !r.mine && !r.held)
    .map((r) => ({
      id: Number(r.id),
      request: { id: Number(r.request_id) },
      wallet: r.wallet,
      nonce: Number(r.nonce),
      hash: r.hash,
      raw: r.raw,
    }));
  if (stranded.length > 0)
    relayer.deps.logger.info('broadcasting transactions a gone or stuck sender stored and never sent', {
      network: network.id,
      nonces: `${stranded[0]!.nonce}..${stranded.at(-1)!.nonce}`,
      count: stranded.length,
    });
  return { stranded, held: rows.some((r) => !r.mine && r.held) };
}

/**
 * While another live sender holds part of the gap below `below`, looks again every RECHECK_MS (for
 * RECHECK_FOR_MS at most: the watcher has it after that, or until the relayer closes): should that
 * sender die, its bytes go out and are recorded at the next look. `broadcast` is the caller's
 * broadcast in order (evm-pipeline.ts). Errors are logged, never thrown: the watcher is the backstop.
 */
export function watchGap(
  relayer: Relayer,
  network: NetworkConfig,
  wallet: string,
  from: number,
  below: number,
  broadcast: (stored: StoredTx[]) => Promise<StoredTx[]>,
): void {
  const until = Date.now() + RECHECK_FOR_MS;
  const look = async (): Promise<void> => {
    if (relayer.closed) return;
    try {
      const gap = await strandedBelow(relayer, network, wallet, from, below);
      const took = gap.stranded.length > 0 ? await broadcast(gap.stranded) : [];
      await recordSentMany(
        relayer,
        took.map((t) => ({ id: Number(t.request.id), txId: Number(t.id), hash: t.hash })),
      );
      if (!gap.held || Date.now() > until) return;
    } catch (error) {
      relayer.deps.logger.warn('closing a nonce gap failed; the watcher sends it', {
        network: network.id,
        error: (error as Error).message,
      });
      return;
    }
    setTimeout(() => void look(), RECHECK_MS).unref();
  };
  setTimeout(() => void look(), RECHECK_MS).unref();
}
