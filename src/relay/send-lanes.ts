import type { Relayer } from './relayer.ts';

/**
 * The sends of one wallet within one process, in two stages: at most one send at a time *asks*
 * (claims the queue, then asks the node and the database what it needs: evm-pipeline.ts), and at most
 * one at a time *signs* (signs, stores under the wallet lock, broadcasts). A send enters the signing
 * stage before it leaves the asking one, so sends keep their order through both, and the next one asks
 * while the one before it signs and broadcasts: a pipeline, not a queue of whole sends.
 *
 * Why stages at all: the jobs that arrive while a send asks wait, and the first of them then claims
 * everything queued meanwhile (one send of many, not many of a few); and two sends signing at once
 * would guess the same nonces, one of them signing again under the lock. The stages only order work
 * within a process: nonces are decided under the wallet's row lock, whatever the stages say.
 */

/** A send waits this long at most for the one before it: a send stuck on its node holds no one up for long. */
const WAIT_MS = 5_000;

export type Stage = 'ask' | 'sign';

interface Lanes {
  tails: Map<string, Promise<void>>;
  /** The nonce after the last one this process stored for the network's wallet. */
  next: Map<string, number>;
}

/** Each sender session's (process's) lanes. */
const lanes = new WeakMap<object, Lanes>();

function lanesOf(relayer: Relayer): Lanes {
  let mine = lanes.get(relayer.session);
  if (!mine) {
    mine = { tails: new Map(), next: new Map() };
    lanes.set(relayer.session, mine);
  }
  return mine;
}

/** Waits for this process's send of the network before this one in `stage` (or WAIT_MS); returns the way out. */
export async function enterStage(relayer: Relayer, networkId: string, stage: Stage): Promise<() => void> {
  const { tails } = lanesOf(relayer);
  const key = `${networkId}:${stage}`;
  const before = tails.get(key) ?? Promise.resolve();
  let leave!: () => void;
  const done = new Promise<void>((resolve) => {
    leave = resolve;
  });
  const tail = before.then(() => done);
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([before, new Promise((resolve) => (timer = setTimeout(resolve, WAIT_MS)))]);
  clearTimeout(timer);
  return leave;
}

/** The nonce after the last one this process stored for the network's wallet (0: none yet). */
export const storedNext = (relayer: Relayer, networkId: string): number =>
  lanesOf(relayer).next.get(networkId) ?? 0;

/** Notes the nonce after the last one this process stored. */
export function noteStored(relayer: Relayer, networkId: string, next: number): void {
  const { next: map } = lanesOf(relayer);
  map.set(networkId, Math.max(map.get(networkId) ?? 0, next));
}
