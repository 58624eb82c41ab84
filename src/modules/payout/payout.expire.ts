import { AbiCoder, keccak256, toBeHex, zeroPadValue } from 'ethers';
import type { NetworkConfig } from '../../chains/networks.ts';
import { untilApplied } from '../../db/fresh-reads.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { TickContext } from '../../followers/types.ts';
import type { Logger } from '../../lib/logger.ts';
import { decodeItemEvent, ITEM_PAID_TOPIC, itemChange } from '../batch/batch.settle.ts';
import type { PayoutChains } from './payout.chain.ts';
import { type FailureReason, Payout } from './payout.entity.ts';
import { PAYOUT_EXECUTED_TOPIC } from './payout.order.ts';
import { payoutReads } from './payout.reads.ts';
import { noteReason } from './payout.revert.ts';
import { ORDER_TTL_SECONDS } from './payout.service.ts';
import { applyChanges, decodeExecution, executionChange } from './payout.settle.ts';
import { type PayoutChange, payoutSnapshot } from './payout.transition.ts';

/**
 * Payouts that can no longer be paid settle `failed` (D7, D14), after each follower tick, and only on
 * positive evidence read at a final block that the stream settling them has already processed: the
 * evidence block is `min(finalized, cursor)`. A payout fails when its deadline is before that block's
 * timestamp (the router refuses the order in every later block) and the router shows its nonce unused
 * at that very block. Then nothing can move any more, and `payout.failed` is safe to act on: a merchant
 * who pays again on it never pays twice.
 *
 * - `pending` (unsigned), `authorized` and `submitted` alike: a merchant may relay its own signed order
 *   without authorizing it through the service, so not even an unsigned payout fails by the wall clock.
 * - The reason is `expired` for an unsigned payout; else the last concrete reason the relay was refused
 *   for (allowance, funds, transfer refused…: `last_relay_reason`, kept when the relay is later given
 *   up at the deadline), else `expired`.
 * - A nonce the router shows used is never a failure by itself: it means the execution happened and
 *   the follower has no record of it. Its log is looked up and applied like the follower would have
 *   (an execution of another order under the nonce is the evidence for `nonce_used`). When the log
 *   cannot be found the payout is left open and operators are alerted.
 *
 * Single payouts are settled after the `payouts` stream's ticks, batch items after the `batches`
 * stream's, each with its own cursor.
 */

/** Payouts examined per tick; the rest wait for the next tick. */
const BATCH = 200;
/** How far before a payout's creation its execution is looked for (clock skew between host and chain). */
const CREATION_SKEW_SECONDS = 600;

export interface ExpireDeps {
  chains: PayoutChains;
  logger: Logger;
}

/** How long a quiet horizon is trusted at most before a pass looks again (rows written by hand, say). */
export const QUIET_REFRESH_MS = 60_000;
/**
 * The margin a new payout's deadline keeps above the chain time its creator saw: it is the later of the
 * creating host's wall clock and the chain's head time, plus ORDER_TTL_SECONDS; half of that leaves
 * room for the hosts' clocks to differ.
 */
const NEW_DEADLINE_MARGIN_SECONDS = ORDER_TTL_SECONDS / 2;

/**
 * What a consumer remembers between its ticks: the evidence block at which a pass found nothing to
 * settle. Until the evidence block moves nothing can join that empty set — a deadline is compared with
 * the evidence block's time, a conflict is recorded at a block the stream processes, which moves the
 * evidence block once it is final, and a new payout's deadline lies in the future — so a tick at the same
 * evidence block skips the pass (most ticks of a network whose blocks are slower than the poll).
 *
 * `quiet`: after an empty pass, how far the evidence block may move and still find nothing (a chain
 * mining a block each poll moved it every tick: a query each). Nothing joins the set before the open
 * payouts' earliest deadline, their lowest conflict block, or a new payout's deadline (at least
 * NEW_DEADLINE_MARGIN_SECONDS past the chain and wall time of the pass); a conflict or a lost execution
 * is recorded only by the stream's logs or a reorganisation, which call {@link forgetQuiet}. Trusted for
 * QUIET_REFRESH_MS at most.
 */
export interface ExpireMemo {
  nothingAt?: number;
  quiet?: { beforeTime: number; beforeBlock: number; until: number };
}

/** The stream's logs or a reorganisation may have made a payout stranded: the next pass looks. */
export function forgetQuiet(memo: ExpireMemo): void {
  memo.quiet = undefined;
}

export async function expirePayouts(
  deps: ExpireDeps,
  network: NetworkConfig,
  ctx: TickContext,
  which: { batch: boolean } = { batch: false },
  memo: ExpireMemo = {},
): Promise<void> {
  const evidence = await evidenceBlock(network, ctx);
  if (!evidence || memo.nothingAt === evidence.number) return;
  const quiet = memo.quiet;
  if (
    quiet &&
    Date.now() < quiet.until &&
    evidence.timestamp <= quiet.beforeTime &&
    evidence.number < quiet.beforeBlock
  ) {
    memo.nothingAt = evidence.number;
    return;
  }
  memo.quiet = undefined;
  const stranded = await ctx.read((em) =>
    em.find(
      Payout,
      {
        network: network.id,
        status: { $in: ['pending', 'authorized', 'submitted'] },
        executedBlock: null,
        // Past its deadline, or another order executed under its nonce at a block that is final now.
        $or: [
          { deadline: { $lt: evidence.timestamp } },
          { conflictBlock: { $ne: null, $lte: evidence.number } },
        ],
        batchId: which.batch ? { $ne: null } : null,
      },
      { limit: BATCH, orderBy: { deadline: 'asc' } },
    ),
  );
  // Only an empty pass is remembered: one that found payouts runs again next tick (a read that failed
  // is retried, a conflict waits for its reorganisation).
  memo.nothingAt = stranded.length === 0 ? evidence.number : undefined;
  if (stranded.length === 0) memo.quiet = await quietHorizon(network, ctx, evidence.timestamp, which);
  for (const payout of stranded) {
    // Chain I/O outside any transaction, at the evidence block: a used nonce stays used, and an unused
    // one at a block past the deadline can never be used again.
    const used = payout.batchId
      ? await deps.chains.itemPaid(
          network,
          payout.router,
          payout.payer,
          BigInt(payout.nonce),
          payout.orderIndex,
          evidence.tag,
        )
      : await deps.chains.nonceUsed(network, payout.router, payout.payer, BigInt(payout.nonce), evidence.tag);
    if (used) await findExecution(deps, network, ctx, payout, evidence.number);
    // A conflict whose execution is not there at the final block waits for its reorganisation.
    else if (payout.deadline < evidence.timestamp) await fail(deps, ctx, payout);
  }
}

/**
 * After an empty pass at an evidence block of time `at`: how far the evidence may move and still find
 * nothing (see {@link ExpireMemo}). A deadline equal to the evidence time is not yet past it.
 */
async function quietHorizon(
  network: NetworkConfig,
  ctx: TickContext,
  at: number,
  which: { batch: boolean },
): Promise<ExpireMemo['quiet']> {
  const [row] = await ctx.read((em) =>
    em.execute<{ deadline: string | null; conflict: string | null }[]>(
      `select min(deadline)::text as deadline, min(conflict_block)::text as conflict from payouts
        where network = ? and status in ('pending', 'authorized', 'submitted') and executed_block is null
          and batch_id is ${which.batch ? 'not null' : 'null'}`,
      [network.id],
    ),
  );
  const wall = Math.floor(Date.now() / 1000);
  const beforeTime = Math.min(
    row?.deadline == null ? Number.POSITIVE_INFINITY : Number(row.deadline),
    Math.min(at, wall) + NEW_DEADLINE_MARGIN_SECONDS,
  );
  const beforeBlock = row?.conflict == null ? Number.POSITIVE_INFINITY : Number(row.conflict);
  return { beforeTime, beforeBlock, until: Date.now() + QUIET_REFRESH_MS };
}

/**
 * The final block the stream has processed, with its chain time (the follower's evidence block), and
 * the block tag its contract reads use (undefined on Tron, whose constant calls answer at the latest
 * state: there the follower only sees solidified blocks and reads after passing them). Undefined
 * before the stream processed any block.
 */
async function evidenceBlock(
  network: NetworkConfig,
  ctx: TickContext,
): Promise<{ number: number; timestamp: number; tag: number | undefined } | undefined> {
  const header = await ctx.evidence();
  if (!header) return undefined;
  return {
    number: header.number,
    timestamp: header.timestamp,
    tag: network.kind === 'tron' ? undefined : header.number,
  };
}

/** Settles a payout that cannot execute any more: `expired` unsigned, else the relay's last reason. */
async function fail(deps: ExpireDeps, ctx: TickContext, payout: Payout): Promise<void> {
  const note = await ctx.read(async (em) => {
    const [row] = await em.execute<{ last_error: string | null }[]>(
      `select last_error from relay_requests where subject_id = ? or subject_id like ?
        order by id desc limit 1`,
      [payout.id, `${payout.batchId ?? payout.id}#%`],
    );
    return row?.last_error ?? null;
  });
  const reason: FailureReason =
    payout.status === 'pending'
      ? 'expired'
      : (payout.lastRelayReason ?? noteReason(payout.relayNote) ?? noteReason(note) ?? 'expired');
  deps.logger.info('payout can no longer be paid', { payout: payout.id, reason });
  await ctx.transaction((tx) =>
    settle(tx, payout.id, (fresh) =>
      fresh.executedBlock == null && fresh.deadline === payout.deadline
        ? {
            kind: 'failed',
            payout: payoutSnapshot(fresh),
            set: { status: 'failed', failureReason: reason, settledAt: new Date() },
          }
        : undefined,
    ),
  );
}

/**
 * The router shows the nonce (or item) used, and the follower recorded no execution: finds the log
 * between the payout's creation and the evidence block and applies it as the follower would. Only an
 * execution in a block the stream has processed is applied (a later one is the stream's to read).
 */
async function findExecution(
  deps: ExpireDeps,
  network: NetworkConfig,
  ctx: TickContext,
  payout: Payout,
  toBlock: number,
): Promise<void> {
  const since = Math.floor(payout.createdAt.getTime() / 1000) - CREATION_SKEW_SECONDS;
  const nonceTopic = toBeHex(BigInt(payout.nonce), 32);
  const payerTopic = zeroPadValue(payout.payer.toLowerCase(), 32);
  const filter = payout.batchId
    ? { address: payout.router, topics: [ITEM_PAID_TOPIC, batchKey(payout)] }
    : { address: payout.router, topics: [PAYOUT_EXECUTED_TOPIC, payerTopic, nonceTopic] };
  let logs: Awaited<ReturnType<PayoutChains['logsSince']>>;
  try {
    logs = await deps.chains.logsSince(network, filter, since, toBlock);
  } catch (error) {
    deps.logger.warn('could not read the router’s logs for a used nonce; trying again next tick', {
      payout: payout.id,
      error: (error as Error).message,
    });
    return;
  }
  const log = payout.batchId
    ? logs.find((l) => decodeItemEvent(l)?.index === payout.orderIndex)
    : logs.find((l) => decodeExecution(l) !== undefined);
  if (!log || log.blockNumber > ctx.cursor.number) {
    if (!log)
      deps.logger.error('the router shows a payout’s nonce used but its execution was not found; left open', {
        payout: payout.id,
        network: network.id,
        from: since,
        to: toBlock,
      });
    return;
  }
  deps.logger.warn('recording an execution the follower had not recorded', {
    payout: payout.id,
    tx: log.transactionHash,
  });
  await ctx.transaction((tx) =>
    settle(tx, payout.id, (fresh) => {
      if (fresh.executedBlock != null) return undefined;
      if (fresh.batchId) {
        const event = decodeItemEvent(log);
        return event ? itemChange(fresh, event, false, deps.logger) : undefined;
      }
      const execution = decodeExecution(log);
      return execution ? executionChange(fresh, execution, deps.logger, true) : undefined;
    }),
  );
}

/** The batch key topic of an item's batch: keccak256(abi.encode(payer, nonce)), as the router computes it. */
function batchKey(payout: Payout): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [payout.payer, payout.nonce]));
}

/** Applies the change `decide` makes of the payout's fresh row, retried while it loses a version race. */
async function settle(
  tx: EntityManager,
  id: string,
  decide: (payout: Payout) => PayoutChange | undefined,
): Promise<void> {
  await untilApplied('payout settlement', async (pass) => {
    const fresh = await tx.findOne(Payout, { id }, payoutReads(pass));
    const change =
      fresh && fresh.status !== 'completed' && fresh.status !== 'failed' ? decide(fresh) : undefined;
    return applyChanges(tx, change ? [change] : []);
  });
}
