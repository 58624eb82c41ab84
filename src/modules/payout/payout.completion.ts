import type { NetworkConfig } from '../../chains/networks.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { FollowerEvent } from '../../followers/types.ts';

/**
 * Whether a router stream (single payouts, batch items) has executions waiting for their depth to
 * complete, so that a block event with no logs can run nothing while none waits (a chain mining empty
 * blocks sent one every tick: a completion query each). An execution is recorded from the stream's
 * own logs, or by the after-tick expiry pass that finds a log the stream missed (payout.expire.ts):
 * logs and that pass make the gate look again, as does a reorganisation.
 *
 * What a block transaction found is trusted once it committed: the stream's cursor is then the block
 * it handled. A consumer lives only as long as its process leads the network
 * (daemons/chain-followers.ts), so no other leader recorded executions meanwhile.
 */
export interface CompletionGate {
  /** True when the block event has nothing to do: no logs, and no execution waits. */
  skip(event: Extract<FollowerEvent, { type: 'block' }>): boolean;
  /** Notes, in the block transaction, whether executions wait (after recording and completing). */
  look(tx: EntityManager): Promise<void>;
  /** Forgets what the stream knew: the next block event looks again. */
  forget(): void;
  /** After a tick: trusts what the block transaction found if the cursor reached its block. */
  committed(cursorHash: string): void;
}

export function completionGate(network: NetworkConfig, which: { batch: boolean }): CompletionGate {
  let waiting: boolean | undefined;
  let tick: boolean | undefined;
  let tickTo: string | undefined;
  return {
    skip(event) {
      tickTo = event.to.hash;
      tick = undefined;
      if (event.logs.length > 0 || waiting !== false) return false;
      tick = false;
      return true;
    },
    async look(tx) {
      tick = await executionsWaiting(tx, network, which);
    },
    forget() {
      waiting = tick = tickTo = undefined;
    },
    committed(cursorHash) {
      if (tick !== undefined && tickTo === cursorHash) waiting = tick;
      tick = tickTo = undefined;
    },
  };
}

/** Whether any payout (or batch item) of the network was executed and waits for its depth to complete. */
async function executionsWaiting(
  tx: EntityManager,
  network: NetworkConfig,
  which: { batch: boolean },
): Promise<boolean> {
  const [row] = await tx.execute<{ waiting: boolean }[]>(
    `select exists(select 1 from payouts where network = ? and status = 'submitted'
                      and executed_block is not null and batch_id is ${which.batch ? 'not null' : 'null'}) as waiting`,
    [network.id],
  );
  return row?.waiting === true;
}
