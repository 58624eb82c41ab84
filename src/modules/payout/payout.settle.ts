import { AbiCoder, getAddress } from 'ethers';
import { checksumAddress } from '../../chains/evm/checksum.ts';
import { type EvmLog, wordAddress } from '../../chains/evm/index.ts';
import { nodeAddress } from '../../chains/evm/util.ts';
import { confirmationsFor, type NetworkConfig } from '../../chains/networks.ts';
import type { BlockHeader } from '../../chains/types.ts';
import { type NotApplied, type Pass, untilApplied } from '../../db/fresh-reads.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Logger } from '../../lib/logger.ts';
import { reviveRelay } from '../../relay/request.ts';
import { Payout } from './payout.entity.ts';
import { payoutReads } from './payout.reads.ts';
import { noteOf } from './payout.revert.ts';
import { type PayoutChange, payoutSnapshot, transitionPayouts } from './payout.transition.ts';

/**
 * Settling single payouts from the chain, inside the follower's transactions: the router's
 * `PayoutExecuted` marks the order executed (whichever transaction did it), the execution completes
 * at the network's depth, and a reorganisation that takes its block away makes it wait again.
 */

const coder = AbiCoder.defaultAbiCoder();

/** One `PayoutExecuted(merchant indexed, nonce indexed, recipient indexed, token, amount)` log. */
export interface Execution {
  payer: string;
  nonce: string;
  recipient: string;
  token: string;
  amount: string;
  log: EvmLog;
}

export function decodeExecution(log: EvmLog): Execution | undefined {
  if (log.topics.length !== 4) return undefined;
  try {
    const [token, amount] = coder.decode(['address', 'uint256'], log.data);
    // The payout wallet and the token recur (remembered); a recipient is mostly new (hashed once, fast).
    return {
      payer: nodeAddress(wordAddress(log.topics[1]!), 'payer'),
      nonce: BigInt(log.topics[2]!).toString(),
      recipient: checksumAddress(wordAddress(log.topics[3]!)),
      token: nodeAddress(token as string, 'token'),
      amount: (amount as bigint).toString(),
      log,
    };
  } catch {
    return undefined;
  }
}

/**
 * Records executions of our orders. An execution that does not match the order with its nonce (the
 * payout wallet signed another order with the same nonce outside the service) means ours can never
 * execute once its block is final: the payout notes the conflict here and fails `nonce_used` at a
 * final block (payout.expire.ts).
 */
export async function recordExecutions(
  tx: EntityManager,
  network: NetworkConfig,
  router: string,
  logs: readonly EvmLog[],
  logger: Logger,
): Promise<void> {
  const executions = logs.flatMap((log) => decodeExecution(log) ?? []);
  if (executions.length === 0) return;
  // The first execution of each order (a node may repeat a log), and the nonces by payout wallet (a
  // burst is mostly one merchant's): one `nonce in (…)` each, not one `or` a log.
  const byOrder = new Map<string, Execution>();
  const noncesOf = new Map<string, string[]>();
  for (const e of executions) {
    const key = `${e.payer}:${e.nonce}`;
    if (byOrder.has(key)) continue;
    byOrder.set(key, e);
    const nonces = noncesOf.get(e.payer);
    if (nonces) nonces.push(e.nonce);
    else noncesOf.set(e.payer, [e.nonce]);
  }
  await untilApplied('payout executions', async (pass) => {
    const payouts = await tx.find(
      Payout,
      {
        network: network.id,
        router: getAddress(router),
        batchIndex: null,
        $or: [...noncesOf].map(([payer, nonces]) => ({ payer, nonce: { $in: nonces } })),
      },
      payoutReads(pass),
    );
    const changes: PayoutChange[] = [];
    for (const payout of payouts) {
      const e = byOrder.get(`${payout.payer}:${payout.nonce}`)!;
      const change = executionChange(payout, e, pass.index === 0 ? logger : undefined, false);
      if (change) changes.push(change);
    }
    return applyChanges(tx, changes);
  });
}

/**
 * What an execution of a payout's nonce does to it: an execution of the order itself marks it executed
 * (whichever transaction sent it); one of another order under its nonce (the payout wallet signed
 * another order with that nonce outside the service) means ours can never execute once that block is
 * final. `final` says the execution was read at a final block: then the payout fails `nonce_used`;
 * before that it only records the conflict's block (a reorganisation may still take it away). A settled
 * payout is left alone. `logger` is given on the first pass only, so a retried pass does not log twice.
 */
export function executionChange(
  payout: Payout,
  e: Execution,
  logger: Logger | undefined,
  final: boolean,
): PayoutChange | undefined {
  const matches =
    e.recipient === getAddress(payout.recipientHex) &&
    e.token === getAddress(payout.tokenAddress) &&
    e.amount === payout.amountRaw;
  if (payout.status === 'completed' || payout.status === 'failed') {
    if (payout.executedBlockHash !== e.log.blockHash)
      logger?.warn('router executed a settled payout’s nonce', {
        payout: payout.id,
        tx: e.log.transactionHash,
      });
    return undefined;
  }
  if (!matches) {
    if (!final) {
      if (payout.conflictBlock === e.log.blockNumber) return undefined;
      logger?.error(
        'the router executed another order under a payout’s nonce; it fails once that block is final',
        {
          payout: payout.id,
          tx: e.log.transactionHash,
        },
      );
      const why = `the router executed another order under this nonce in ${e.log.transactionHash} (block ${e.log.blockNumber})`;
      return {
        kind: 'noted',
        payout: payoutSnapshot(payout),
        set: { conflictBlock: e.log.blockNumber, relayNote: noteOf('nonce_used', why) },
      };
    }
    return {
      kind: 'failed',
      payout: payoutSnapshot(payout),
      set: { status: 'failed', failureReason: 'nonce_used', settledAt: new Date() },
    };
  }
  if (payout.executedBlockHash === e.log.blockHash) return undefined;
  return {
    kind: 'executed',
    payout: payoutSnapshot(payout),
    set: {
      status: 'submitted',
      txHash: e.log.transactionHash.toLowerCase(),
      executedBlock: e.log.blockNumber,
      executedBlockHash: e.log.blockHash,
    },
  };
}

/** Applies a pass's changes; returns the ids whose change lost its version race. */
export async function applyChanges(tx: EntityManager, changes: readonly PayoutChange[]): Promise<NotApplied> {
  const { stale } = await transitionPayouts(tx, changes, 'report');
  return stale.map((c) => c.payout.id);
}

/** Blocks an execution of `amount` waits for: the amount tiers (D14); on `tron` the solidified block. */
export const depthFor = (network: NetworkConfig, amount: string): number =>
  network.kind === 'tron' ? 1 : Math.max(1, confirmationsFor(network, amount));

/**
 * Completes executed payouts that reached their depth at `head`: single payouts, or batch items (each
 * consumer settles its own, since each follows its own router's blocks).
 */
export async function completeDue(
  tx: EntityManager,
  network: NetworkConfig,
  head: BlockHeader,
  which: { batch: boolean } = { batch: false },
): Promise<void> {
  await untilApplied('payout completions', async (pass) => {
    const executed = await tx.find(
      Payout,
      {
        network: network.id,
        status: 'submitted',
        executedBlock: { $ne: null, $lte: head.number },
        batchId: which.batch ? { $ne: null } : null,
      },
      payoutReads(pass),
    );
    const now = new Date();
    return applyChanges(
      tx,
      executed
        .filter((p) => head.number - Number(p.executedBlock) + 1 >= depthFor(network, p.amount))
        .map((p) => ({
          kind: 'completed' as const,
          payout: payoutSnapshot(p),
          set: { status: 'completed' as const, settledAt: now },
        })),
    );
  });
}

/** Executions in blocks above `ancestor` left the chain: those payouts wait for an execution again. */
export async function forgetExecutions(
  tx: EntityManager,
  network: NetworkConfig,
  ancestor: number,
  logger: Logger,
  which: { batch: boolean } = { batch: false },
): Promise<void> {
  await untilApplied('payout executions lost to a reorganisation', async (pass: Pass) => {
    const lost = await tx.find(
      Payout,
      { network: network.id, executedBlock: { $gt: ancestor }, batchId: which.batch ? { $ne: null } : null },
      payoutReads(pass),
    );
    const open = lost.filter((p) => p.status === 'submitted');
    // Another order's execution under a payout's nonce left the chain: it may execute after all.
    const unconflicted = await tx.find(
      Payout,
      {
        network: network.id,
        conflictBlock: { $gt: ancestor },
        status: { $in: ['authorized', 'submitted'] },
        batchId: which.batch ? { $ne: null } : null,
      },
      payoutReads(pass),
    );
    if (pass.index === 0)
      for (const p of lost.filter((x) => x.status === 'completed'))
        logger.error('a completed payout’s execution left the chain', {
          payout: p.id,
          block: p.executedBlock,
        });
    // Their relays may have finished; whatever executed them is gone: relay again (re-checked first).
    await reviveRelay(
      tx,
      [...open, ...unconflicted].map((p) =>
        p.batchId
          ? { kind: 'batch' as const, subjectId: `${p.batchId}#1` }
          : { kind: 'payout' as const, subjectId: p.id },
      ),
    );
    return applyChanges(tx, [
      ...open.map((p) => ({
        kind: 'unexecuted' as const,
        payout: payoutSnapshot(p),
        set: { executedBlock: null, executedBlockHash: null },
      })),
      ...unconflicted
        .filter((p) => !open.includes(p))
        .map((p) => ({
          kind: 'noted' as const,
          payout: payoutSnapshot(p),
          set: { conflictBlock: null, relayNote: null },
        })),
    ]);
  });
}
