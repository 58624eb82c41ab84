import type { EvmLog, LogChunk, LogFilter } from '../chains/evm/index.ts';
import type { BlockHeader } from '../chains/types.ts';
import type { EntityManager } from '../db/orm.ts';

/**
 * What a chain follower tells its consumers, in chain order:
 * - `block`: the blocks after the stream's cursor up to `to`, with the consumer's logs of them;
 * - `reorg`: blocks above `ancestor` left the canonical chain; undo what was derived from them;
 * - `finalize`: blocks up to `block` can no longer change.
 * Every event is applied inside the transaction that moves the stream's cursor, so a consumer's
 * state and its cursor never disagree, whatever crashes when.
 */
export type FollowerEvent =
  | {
      type: 'block';
      /** First block of the range. */
      from: number;
      /** Last block of the range: the stream's cursor after this event. */
      to: BlockHeader;
      /** The consumer's logs in [from, to.number], chain order; consistent with the followed headers. */
      logs: EvmLog[];
      /** The head the follower is at (depth = head.number - block + 1). */
      head: BlockHeader;
      /** The service's final block (finality.ts): never newer than the node's word or its depth rule. */
      finalized: number;
    }
  | { type: 'reorg'; ancestor: BlockHeader; head: BlockHeader }
  | { type: 'finalize'; block: number };

/** Where a follower stands after a tick; handed to consumers' out-of-transaction work. */
export interface TickContext {
  head: BlockHeader;
  /** The service's final block (finality.ts): never newer than the node's word or its depth rule. */
  finalized: number;
  /** The stream's cursor: every block up to it is processed. */
  cursor: BlockHeader;
  /**
   * The evidence block: the newest block the stream has processed that is final by the service's rule
   * (min(finalized, cursor)), with its chain time; undefined before the stream processed any. A failure
   * (a deadline passed, a transaction reverted or never mined) is declared only on evidence at or below
   * it: above it, a reorganisation may still bring the payment in.
   */
  evidence(): Promise<BlockHeader | undefined>;
  /** A transaction fenced like the follower's own (refused once this process lost the network). */
  transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T>;
  /**
   * Reads outside any transaction, unfenced: one statement where a transaction costs four (begin, the
   * fence, the read, commit). For deciding whether there is work; what it decides is written, if at
   * all, in `transaction` (a process that lost the network reads harmlessly and writes nothing).
   */
  read<T>(work: (em: EntityManager) => Promise<T>): Promise<T>;
}

/** A domain module that derives state from one network's chain (sessions, deposits, relays). */
export interface Consumer {
  /** The cursor's name; one cursor per (network, stream). */
  readonly stream: string;
  /** The logs the consumer reads (contracts and topics). */
  readonly filter: LogFilter;
  /** The first block to process when the stream has no cursor yet. */
  startBlock(head: BlockHeader): number;
  /** Applies one event inside the transaction that moves the cursor. Must be idempotent. */
  handle(tx: EntityManager, event: FollowerEvent): Promise<void>;
  /**
   * Whether a block event (and the finality after it) would write nothing: no logs of the stream's,
   * nothing due at its depth, as a committed transaction found (finding.ts). Asked outside any
   * transaction, from memory (no statement). When every stream's blocks are idle the follower applies
   * them without a transaction, its cursors and window kept in memory and written later (follower.ts,
   * MAX_UNSAVED_MS); a restart reads them again. Absent: never idle.
   */
  idle?(event: Extract<FollowerEvent, { type: 'block' }>): boolean;
  /** A transaction that applied this consumer's events rolled back: drop what it found (finding.ts). */
  rolledBack?(): void;
  /** After the tick's transactions: work that reads the chain, never inside a transaction. */
  afterTick?(context: TickContext): Promise<void>;
}

/**
 * The chain as a follower reads it; one implementation per kind of network. The source reports what
 * the node says; what the service treats as final is the follower's decision (finality.ts), never the
 * node's word alone.
 */
export interface ChainSource {
  head(): Promise<BlockHeader>;
  /**
   * The block the node itself calls final (EVM: its `finalized` tag, null where it serves none; Tron:
   * the solidified head). Raw: it may be ahead of `head` (another node answered) or behind what it
   * said before (a node that lies); the follower judges it.
   */
  nodeFinalized(head: BlockHeader): Promise<number | null>;
  /**
   * The service's own rule for this chain: a block is final only at least `depth` blocks behind the
   * head, and the window of unfinalized headers always holds at least the `window` newest blocks (the
   * deepest confirmation tier), so a reorganisation before a tier's depth is always seen. Tron: 0, 0
   * (the source reads solidified blocks only).
   */
  readonly finality: { depth: number; window: number };
  /** Headers of the given blocks (null where the node has none), in one round trip where possible. */
  headers(numbers: readonly number[]): Promise<(BlockHeader | null)[]>;
  /** Logs of final blocks [from, to] in consecutive chunks (a block range may be read in one query). */
  finalLogs(filter: LogFilter, from: number, to: number): AsyncGenerator<LogChunk>;
  /** Logs of exact (unfinalized) blocks, by hash, one list per block. */
  blockLogs(filter: LogFilter, hashes: readonly string[]): Promise<EvmLog[][]>;
}
