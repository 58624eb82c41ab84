import type { NetworkConfig } from '../../chains/networks.ts';
import type { BlockHeader } from '../../chains/types.ts';
import type { EntityManager } from '../../db/orm.ts';
import { Finding } from '../../followers/finding.ts';
import type { FollowerEvent } from '../../followers/types.ts';

/**
 * Whether a router stream (single payouts, batch items) has executions waiting for their depth to
 * complete, so that a block event with no logs can run nothing while none waits (a chain mining empty
 * blocks sent one every tick: a completion query each), and the follower can skip such a block's
 * transaction (`idle`). An execution is recorded from the stream's own logs, or by the after-tick
 * expiry pass that finds a log the stream missed (payout.expire.ts): logs and that pass make the gate
 * look again, as does a reorganisation. What a block transaction found is trusted as the follower's
 * findings are (src/followers/finding.ts).
 */
export interface CompletionGate {
  /** True when the block event has nothing to do: no logs, and no execution waits. */
  skip(event: BlockEvent): boolean;
  /** The same, asked outside the transaction (Consumer.idle): nothing is noted. */
  idle(event: BlockEvent): boolean;
  /** Notes, in the block transaction, whether executions wait (after recording and completing). */
  look(tx: EntityManager): Promise<void>;
  /** Forgets what the stream knew: the next block event looks again. */
  forget(): void;
  /** The block transaction rolled back (Consumer.rolledBack). */
  rollback(): void;
  /** After a tick: trusts what the block transaction found if the cursor reached its block. */
  committed(cursor: Pick<BlockHeader, 'hash'>): void;
}

type BlockEvent = Extract<FollowerEvent, { type: 'block' }>;

export function completionGate(network: NetworkConfig, which: { batch: boolean }): CompletionGate {
  const waiting = new Finding<boolean>();
  const idle = (event: BlockEvent) => event.logs.length === 0 && waiting.value === false;
  return {
    skip(event) {
      waiting.begin(event.to);
      return idle(event);
    },
    idle,
    async look(tx) {
      waiting.found(await executionsWaiting(tx, network, which));
    },
    forget: () => waiting.forget(),
    rollback: () => waiting.rollback(),
    committed: (cursor) => waiting.committed(cursor),
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
