import { getAddress } from 'ethers';
import { z } from 'zod';
import type { EvmLog } from '../../chains/evm/index.ts';
import type { NetworkConfig } from '../../chains/networks.ts';
import { untilApplied } from '../../db/fresh-reads.ts';
import { addJob, defineJob } from '../../db/jobs.ts';
import type { EntityManager } from '../../db/orm.ts';
import { faultPoint } from '../../lib/fault.ts';
import type { Logger } from '../../lib/logger.ts';
import { Payout } from '../payout/payout.entity.ts';
import { payoutReads } from '../payout/payout.reads.ts';
import { noteOf, revertReason } from '../payout/payout.revert.ts';
import { applyChanges } from '../payout/payout.settle.ts';
import { type PayoutChange, payoutSnapshot } from '../payout/payout.transition.ts';
import { BATCH_ROUTER } from './batch.authorize.ts';
import { PayoutBatch } from './batch.entity.ts';

/**
 * Settling batch items from the router's events, inside the follower's transactions: `ItemPaid` marks
 * an item executed (it then completes at its depth like any payout), `ItemFailed` notes why the token
 * refused it, and a `BatchExecuted` that left items unpaid schedules the next submission of the same
 * signed batch (the router skips paid items), with backoff, until the deadline.
 */

export const ITEM_PAID_TOPIC = BATCH_ROUTER.getEvent('ItemPaid')!.topicHash;
export const ITEM_FAILED_TOPIC = BATCH_ROUTER.getEvent('ItemFailed')!.topicHash;
export const BATCH_EXECUTED_TOPIC = BATCH_ROUTER.getEvent('BatchExecuted')!.topicHash;

/** Queues a batch's next submission; one job per (batch, submission), so a replayed range queues it once. */
export const BATCH_RESUBMIT_JOB = defineJob({
  name: 'batch_resubmit',
  payload: z.object({ batchId: z.string().min(1).max(40), submission: z.number().int().min(2) }),
  key: ({ batchId, submission }) => `batch_resubmit:${batchId}:${submission}`,
});
/** Delay before resubmission `n` (n ≥ 2): 5 s, 10 s, 20 s … capped at 5 min. */
export const resubmitDelayMs = (n: number) => Math.min(5_000 * 2 ** Math.max(0, n - 2), 5 * 60_000);

export interface ItemEvent {
  kind: 'paid' | 'failed' | 'executed';
  key: string;
  index: number;
  recipient?: string;
  amount?: string;
  reason?: string;
  unpaid?: bigint;
  log: EvmLog;
}

export function decodeItemEvent(log: EvmLog): ItemEvent | undefined {
  try {
    const parsed = BATCH_ROUTER.parseLog({ topics: log.topics, data: log.data });
    if (!parsed) return undefined;
    const key = String(parsed.args.batchKey).toLowerCase();
    if (parsed.name === 'ItemPaid' || parsed.name === 'ItemFailed') {
      return {
        kind: parsed.name === 'ItemPaid' ? 'paid' : 'failed',
        key,
        index: Number(parsed.args.index),
        recipient: getAddress(String(parsed.args.recipient)),
        amount: String(parsed.args.amount),
        ...(parsed.name === 'ItemFailed' ? { reason: String(parsed.args.reason) } : {}),
        log,
      };
    }
    if (parsed.name === 'BatchExecuted')
      return { kind: 'executed', key, index: -1, unpaid: BigInt(parsed.args.failed), log };
  } catch {
    // Not an event of ours.
  }
  return undefined;
}

/** Applies one block range's router events to the batches they name. */
export async function recordBatchEvents(
  tx: EntityManager,
  network: NetworkConfig,
  logs: readonly EvmLog[],
  logger: Logger,
): Promise<void> {
  const events = logs.flatMap((log) => decodeItemEvent(log) ?? []);
  if (events.length === 0) return;
  // A crash here (inside the follower's transaction) loses nothing: the block range is read again.
  faultPoint('batch:before-record');
  const keys = [...new Set(events.map((e) => e.key))];
  const batches = await tx.find(PayoutBatch, { network: network.id, batchKey: { $in: keys } });
  if (batches.length === 0) return;
  for (const e of events) {
    const batch = batches.find((b) => b.batchKey.toLowerCase() === e.key);
    if (batch && e.kind === 'executed' && e.unpaid && e.unpaid > 0n) await scheduleResubmission(tx, batch);
  }
  await untilApplied('batch item events', async (pass) => {
    const items = await tx.find(Payout, { batchId: { $in: batches.map((b) => b.id) } }, payoutReads(pass));
    const changes = new Map<string, PayoutChange>();
    for (const e of events) {
      if (e.kind === 'executed') continue;
      const batch = batches.find((b) => b.batchKey.toLowerCase() === e.key);
      const item = batch && items.find((i) => i.batchId === batch.id && i.batchIndex === e.index);
      if (!item || item.status === 'completed' || item.status === 'failed') continue;
      const change = itemChange(item, e, changes.has(item.id), pass.index === 0 ? logger : undefined);
      if (change) changes.set(item.id, change);
    }
    return applyChanges(tx, [...changes.values()]);
  });
}

/**
 * What one `ItemPaid` / `ItemFailed` does to an open item: paid marks it executed (it then completes
 * at its depth like any payout); a refusal is noted for operators unless the item is executed or
 * already changed by an event earlier in the range.
 */
export function itemChange(
  item: Payout,
  e: ItemEvent,
  changedInRange: boolean,
  logger: Logger | undefined,
): PayoutChange | undefined {
  if (e.kind === 'paid') {
    if (e.recipient !== getAddress(item.recipientHex) || e.amount !== item.amountRaw) {
      logger?.error('the batch router paid an item other than the order says', { payout: item.id });
      return undefined;
    }
    if (item.executedBlockHash === e.log.blockHash) return undefined;
    return {
      kind: 'executed',
      payout: payoutSnapshot(item),
      set: {
        status: 'submitted',
        txHash: e.log.transactionHash.toLowerCase(),
        executedBlock: e.log.blockNumber,
        executedBlockHash: e.log.blockHash,
        relayNote: null,
      },
    };
  }
  if (item.executedBlock != null || changedInRange) return undefined;
  const reason = revertReason(e.reason ?? null, 'the token refused the transfer');
  // The router reports a refused transfer; unexplained, it is the token's refusal.
  const code = reason === 'reverted' ? 'transfer_failed' : reason;
  return {
    kind: 'noted',
    payout: payoutSnapshot(item),
    set: { relayNote: noteOf(code, `the token refused the transfer in ${e.log.transactionHash}`) },
  };
}

/** Queues the next submission of the same signed batch, after a backoff, if its deadline allows. */
async function scheduleResubmission(tx: EntityManager, batch: PayoutBatch): Promise<void> {
  const next = batch.submissions + 1;
  const runAt = new Date(Date.now() + resubmitDelayMs(next));
  if (runAt.getTime() / 1000 > batch.deadline) return;
  // One job per (batch, submission): a block range replayed after a crash queues it once.
  await addJob(tx, BATCH_RESUBMIT_JOB, { batchId: batch.id, submission: next }, { runAt });
}
