import type { EntityManager } from '../db/orm.ts';
import type { RelayKind, RelayRequest } from './relay.entity.ts';

/**
 * The contract between the transaction submitter (src/relay/) and the modules that want calls on
 * chain (payouts, batches, sweeps). The submitter owns nonces, fees, signing, broadcasting,
 * replacement and jam recovery; the owner of a kind owns what the call means. Every callback that
 * receives an EntityManager runs inside the submitter's database transaction, so the owner's change
 * (a payout moved to `submitted`, or settled `failed`) commits together with the relay's state.
 */

/** What a relay call's revert says, decoded by the owner. */
export interface RelayRevert {
  /** Revert data (`0x` hex), when the node returned it. */
  data: string | null;
  /** The node's message. */
  message: string;
  /** true: a mined transaction reverted; false: the call reverted in simulation before sending. */
  mined: boolean;
}

/** What the owner wants done after a revert. */
export type RevertDecision =
  /** The condition may clear (allowance, funds): try again later, until the request's deadline. */
  | { action: 'retry'; reason: string }
  /** Never going to succeed (invalid signature, nonce used, expired): give up with this reason. */
  | { action: 'abandon'; reason: string };

export interface RelayHandler {
  /**
   * Asked before every (re)broadcast and while waiting for a receipt, outside any transaction:
   * `send` to keep relaying; `done` when the subject needs no more transactions (executed on chain,
   * possibly by another transaction, or settled). Reads the chain where it must (router `nonceUsed`).
   */
  check(request: RelayRequest): Promise<'send' | 'done'>;
  /**
   * {@link check} of many requests at once (one read of their subjects, one batch of chain reads),
   * answering in their order. Optional: without it each is checked on its own.
   */
  checkMany?(requests: readonly RelayRequest[]): Promise<('send' | 'done')[]>;
  /** The call reverts: decide. */
  onRevert(request: RelayRequest, revert: RelayRevert): Promise<RevertDecision>;
  /** A transaction of the request was broadcast (first send or a replacement): record its hash. */
  onBroadcast(tx: EntityManager, request: RelayRequest, txHash: string): Promise<void>;
  /** {@link onBroadcast} of many requests in one go (set-based). Optional: else one by one. */
  onBroadcastMany?(
    tx: EntityManager,
    sent: readonly { request: RelayRequest; txHash: string }[],
  ): Promise<void>;
  /** The request waits for a retry with `reason` (a revert decided `retry`, the wallet out of gas…): note it. */
  onRetry?(tx: EntityManager, request: RelayRequest, reason: string): Promise<void>;
  /** The request is given up with `reason`: settle the subject. */
  onAbandon(tx: EntityManager, request: RelayRequest, reason: string): Promise<void>;
}

export type RelayHandlers = Partial<Record<RelayKind, RelayHandler>>;
