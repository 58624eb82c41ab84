import type { EvmClient, EvmLog, LogChunk } from '../../chains/evm/index.ts';
import { confirmationsFor } from '../../chains/networks.ts';
import type { BlockHeader } from '../../chains/types.ts';
import type { Config } from '../../config.ts';
import type { EntityManager } from '../../db/orm.ts';
import { unavailable } from '../../errors.ts';
import type { Logger } from '../../lib/logger.ts';
import { formatUnits } from '../../money.ts';
import type { SessionChains, SessionNetwork } from './session.chain.ts';
import { ListenerCheckpoint, Session } from './session.entity.ts';
import { acceptPayments } from './session.match.ts';
import { completeSession, failSession, forgetPayment } from './session.settle.ts';

/**
 * The chain listener of one network: follows the payment router's `Payment` events from a stored
 * checkpoint and settles sessions (D5). One `pass()` is one iteration; the `listen_network` daemon
 * calls it in a loop. Every chunk of logs commits its accepted payments together with the checkpoint,
 * and every settlement is guarded by the status it leaves, so a pass killed anywhere and run again
 * loses nothing and settles nothing twice.
 */

/** Blocks scanned behind the head when a network has no checkpoint yet. */
export const INITIAL_LOOKBACK_BLOCKS = 10_000;
/** At most this many blocks per pass, so one pass of a long backfill stays short. */
export const MAX_BLOCKS_PER_PASS = 100_000;
/** Settlements per database transaction. */
export const SETTLE_BATCH = 100;
/** Settlement transactions in flight at once (distinct sessions each; every update is guarded). */
export const SETTLE_CONCURRENCY = 4;

export interface ListenerHooks {
  /** Inside a chunk's transaction, before it commits (a throw rolls the chunk back). */
  beforeCommit?(chunk: LogChunk): void | Promise<void>;
  /** After a chunk and its checkpoint committed (a throw stops the pass there: a crash). */
  afterCommit?(chunk: LogChunk): void | Promise<void>;
}

export interface ListenerOptions {
  /** First block when there is no checkpoint; default INITIAL_LOOKBACK_BLOCKS behind the head. */
  startBlock?: number;
  maxBlocksPerPass?: number;
  /** Wall clock (expiry, mining timeout); chain time comes from block headers. */
  now?: () => Date;
  hooks?: ListenerHooks;
}

export interface PassResult {
  head: number;
  /** Last block whose logs are processed (the checkpoint after the pass). */
  scannedTo: number;
  /** True when the pass reached the head. */
  caughtUp: boolean;
  chunks: number;
  /** Payments accepted (recorded on a session). */
  payments: number;
  completed: string[];
  failed: string[];
  /** Payments whose block left the canonical chain (forgotten, rescanned). */
  reorged: string[];
}

export interface ListenerDeps {
  fork: () => EntityManager;
  chains: SessionChains;
  config: Pick<Config, 'paymentMiningTimeoutMinutes'>;
  logger: Logger;
}

export function createListener(deps: ListenerDeps, networkId: string, options: ListenerOptions = {}) {
  const network = deps.chains.network(networkId);
  const client = deps.chains.client(network);
  const log = deps.logger.child({ daemon: 'listener', network: networkId });
  const now = () => options.now?.() ?? new Date();
  // Deeper than every confirmation tier: below that a payment is final, nothing to rescan.
  const reorgDepth = Math.max(...network.confirmations.map((t) => t.blocks)) + 1;

  async function pass(): Promise<PassResult> {
    const head = await client.getBlockHeader('latest');
    if (!head) throw unavailable(`network ${networkId}: no head block`);
    const result: PassResult = {
      head: head.number,
      scannedTo: -1,
      caughtUp: false,
      chunks: 0,
      payments: 0,
      completed: [],
      failed: [],
      reorged: [],
    };
    const start = await startingPoint(head);
    let scanned = start.scanned;
    const to = Math.min(head.number, start.from + (options.maxBlocksPerPass ?? MAX_BLOCKS_PER_PASS) - 1);
    if (start.from <= to) {
      const filter = { fromBlock: start.from, toBlock: to, address: network.contracts.paymentRouter };
      for await (const chunk of client.scanLogs(filter)) {
        const end = await header(chunk.toBlock);
        await deps.fork().transactional(async (tx) => {
          result.payments += await acceptPayments(tx, network, chunk.logs, log);
          await saveCheckpoint(tx, end);
          await options.hooks?.beforeCommit?.(chunk);
        });
        scanned = end;
        result.chunks++;
        await options.hooks?.afterCommit?.(chunk);
      }
    }
    result.scannedTo = scanned?.number ?? start.from - 1;
    result.caughtUp = result.scannedTo >= head.number;
    if (scanned) {
      await confirm(head, scanned, result);
      const minedWithoutPayment = await checkReported(head, scanned, result);
      await expire(scanned, minedWithoutPayment, result);
    }
    return result;
  }

  /** Where to resume: after the checkpoint, or well below it when its block is no longer canonical. */
  async function startingPoint(head: BlockHeader): Promise<{ from: number; scanned: BlockHeader | null }> {
    const cp = await deps.fork().findOne(ListenerCheckpoint, { network: networkId });
    if (!cp) {
      const from = options.startBlock ?? Math.max(0, head.number - INITIAL_LOOKBACK_BLOCKS);
      return { from, scanned: null };
    }
    const at = await client.getBlockHeader(cp.blockNumber);
    if (at && at.hash === cp.blockHash) return { from: cp.blockNumber + 1, scanned: at };
    log.warn('checkpoint block left the canonical chain; rescanning', { block: cp.blockNumber });
    const from = Math.max(0, cp.blockNumber - reorgDepth);
    return { from, scanned: null };
  }

  async function header(block: number): Promise<BlockHeader> {
    const h = await client.getBlockHeader(block);
    if (!h) throw unavailable(`network ${networkId}: block ${block} not found`);
    return h;
  }

  async function saveCheckpoint(em: EntityManager, block: BlockHeader): Promise<void> {
    await em.execute(
      `insert into listener_checkpoints (network, block_number, block_hash, updated_at) values (?, ?, ?, now())
       on conflict (network) do update set block_number = excluded.block_number, block_hash = excluded.block_hash,
       updated_at = excluded.updated_at`,
      [networkId, block.number, block.hash],
    );
  }

  /** processing → completed at the tier's depth, after checking the payment's block is still canonical. */
  async function confirm(head: BlockHeader, scanned: BlockHeader, result: PassResult): Promise<void> {
    const open = await deps.fork().find(Session, {
      network: networkId,
      status: 'processing',
      txHash: { $ne: null },
      blockNumber: { $lte: scanned.number },
    });
    const due = open.filter(
      (s) => head.number - s.blockNumber! + 1 >= confirmationsFor(network, paidAmount(network, s)),
    );
    if (due.length === 0) return;
    const blocks = [...new Set(due.map((s) => s.blockNumber!))];
    const headers = await client.getBlockHeaders(blocks);
    const canonical = new Map(blocks.map((b, i) => [b, headers[i]?.hash]));
    await inBatches(due, async (batch) => {
      await deps.fork().transactional(async (tx) => {
        for (const s of batch) {
          if (canonical.get(s.blockNumber!) === s.blockHash) {
            if (await completeSession(tx, s, decimalsOf(network, s))) result.completed.push(s.id);
          } else if (await forgetPayment(tx, s)) {
            // Rescan from just below the lost block: the transaction may be in a new block.
            result.reorged.push(s.id);
            await rewindCheckpoint(tx, s.blockNumber! - 1);
            log.warn('payment block left the canonical chain', { session: s.id, block: s.blockNumber });
          }
        }
      });
    });
  }

  async function rewindCheckpoint(em: EntityManager, block: number): Promise<void> {
    const h = await header(Math.max(0, block));
    await em.execute(
      `update listener_checkpoints set block_number = ?, block_hash = ?, updated_at = now()
        where network = ? and block_number > ?`,
      [h.number, h.hash, networkId, h.number],
    );
  }

  /**
   * Sessions whose reported transaction has no accepted payment yet: reverted → `reverted`; never
   * mined within the timeout → `failed`; mined fine → look in its receipt (the tx-hash fallback).
   * Returns the sessions whose transaction succeeded without paying them.
   */
  async function checkReported(
    head: BlockHeader,
    scanned: BlockHeader,
    result: PassResult,
  ): Promise<Set<string>> {
    const waiting = await deps.fork().find(Session, {
      network: networkId,
      status: 'processing',
      txHash: null,
      reportedTxHash: { $ne: null },
    });
    const minedWithoutPayment = new Set<string>();
    const timeoutMs = deps.config.paymentMiningTimeoutMinutes * 60_000;
    for (const s of waiting) {
      const receipt = await client.getReceipt(s.reportedTxHash!);
      await deps.fork().transactional(async (tx) => {
        if (!receipt || receipt.blockNumber > scanned.number) {
          if (!receipt && s.reportedAt && now().getTime() - s.reportedAt.getTime() >= timeoutMs) {
            if (await failSession(tx, s, { step: 'failed', reason: 'not_mined' }, ['processing']))
              result.failed.push(s.id);
          }
          return;
        }
        if (!receipt.success) {
          const depth = head.number - receipt.blockNumber + 1;
          if (depth < confirmationsFor(network, s.amount ?? '0')) return;
          const outcome = { step: 'reverted' as const, reason: 'reverted', txHash: s.reportedTxHash };
          if (await failSession(tx, s, outcome, ['processing'])) result.failed.push(s.id);
          return;
        }
        const logs = receipt.logs.filter((l: EvmLog) =>
          sameAddress(l.address, network.contracts.paymentRouter),
        );
        if ((await acceptPayments(tx, network, logs, log)) === 0) minedWithoutPayment.add(s.id);
        else result.payments++;
      });
    }
    return minedWithoutPayment;
  }

  /**
   * D5 expiry: past `expires_at` by the wall clock and past the router deadline by the chain's own
   * clock (the last scanned block, so no payment can still be found), with no payment accepted.
   */
  async function expire(
    scanned: BlockHeader,
    minedWithoutPayment: Set<string>,
    result: PassResult,
  ): Promise<void> {
    const candidates = await deps.fork().find(Session, {
      status: { $in: ['pending', 'processing'] },
      txHash: null,
      expiresAt: { $lte: now() },
      $or: [{ network: networkId }, { network: null }],
    });
    const due = candidates.filter((s) => {
      if (s.status === 'processing' && !minedWithoutPayment.has(s.id)) return false;
      if (!s.network) return true;
      const deadline = s.deadline ?? Math.floor(s.expiresAt.getTime() / 1000);
      return scanned.timestamp > deadline;
    });
    await inBatches(due, async (batch) => {
      await deps.fork().transactional(async (tx) => {
        for (const s of batch) {
          const reason = s.status === 'processing' ? 'no_payment' : 'expired';
          if (await failSession(tx, s, { step: 'failed', reason }, [s.status as 'pending' | 'processing'])) {
            result.failed.push(s.id);
          }
        }
      });
    });
  }

  return { network, client: client as EvmClient, pass };
}

export type Listener = ReturnType<typeof createListener>;

/** Runs `work` over SETTLE_BATCH-sized slices, SETTLE_CONCURRENCY at a time. */
async function inBatches<T>(items: T[], work: (batch: T[]) => Promise<void>): Promise<void> {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += SETTLE_BATCH) batches.push(items.slice(i, i + SETTLE_BATCH));
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(SETTLE_CONCURRENCY, batches.length) }, async () => {
      while (next < batches.length) await work(batches[next++]!);
    }),
  );
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function decimalsOf(network: SessionNetwork, s: Session): number {
  return network.tokens.find((t) => t.symbol === s.token)?.decimals ?? 0;
}

/** The paid amount in whole units: larger deposits wait for more blocks (D5 tiers). */
function paidAmount(network: SessionNetwork, s: Session): string {
  return s.paidRaw ? formatUnits(BigInt(s.paidRaw), decimalsOf(network, s)) : (s.amount ?? '0');
}
