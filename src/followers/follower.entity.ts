import { defineEntity, p } from '@mikro-orm/core';
import { updatedAt } from '../db/timestamps.ts';

/**
 * How far one consumer (stream) of a network's follower has processed the chain. Advanced in the
 * same transaction as what the consumer derived from those blocks, so a crash repeats or loses
 * nothing; rewound with the consumer's undo when a reorganisation removes blocks under it.
 */
export const ChainCursorSchema = defineEntity({
  name: 'ChainCursor',
  tableName: 'chain_cursors',
  properties: {
    network: p.string().length(32).primary(),
    stream: p.string().length(32).primary(),
    /** Last block whose events the stream has fully processed. */
    blockNumber: p.bigint('number'),
    blockHash: p.string().length(66),
    /** The chain's own time of that block, seconds. */
    blockTimestamp: p.bigint('number'),
    updatedAt: updatedAt(),
  },
});
export class ChainCursor extends ChainCursorSchema.class {}
ChainCursorSchema.setClass(ChainCursor);

/**
 * The follower's window of unfinalized block headers it has seen, hash-linked (each block's parent is
 * the row below). A new head that does not link onto it is a reorganisation; comparing the window
 * with the canonical headers finds the common ancestor. Rows at or below the finalized block are pruned.
 */
export const ChainBlockSchema = defineEntity({
  name: 'ChainBlock',
  tableName: 'chain_blocks',
  properties: {
    network: p.string().length(32).primary(),
    number: p.bigint('number').primary(),
    hash: p.string().length(66),
    parentHash: p.string().length(66),
    timestamp: p.bigint('number'),
  },
});
export class ChainBlock extends ChainBlockSchema.class {}
ChainBlockSchema.setClass(ChainBlock);

/**
 * Who follows a network now and what it last saw of the chain: written when a worker takes the
 * network over and on every tick, for operators, `/readyz` and metrics (follower lag). Leadership
 * itself is a PostgreSQL advisory lock (see leadership.ts), not this row.
 */
export const ChainFollowerSchema = defineEntity({
  name: 'ChainFollower',
  tableName: 'chain_followers',
  properties: {
    network: p.string().length(32).primary(),
    owner: p.string().length(128),
    since: p.datetime(),
    headNumber: p.bigint('number').nullable(),
    headTimestamp: p.bigint('number').nullable(),
    /** The service's final block (finality.ts), never moved back. */
    finalizedNumber: p.bigint('number').nullable(),
    /** The highest `finalized` block the node reported (null: it serves none). */
    nodeFinalizedNumber: p.bigint('number').nullable(),
    /** Why the node is not trusted now (its finality went back); nothing settles until it is cleared. */
    nodeProblem: p.text().nullable(),
    nodeProblemSince: p.datetime().nullable(),
    tickedAt: p.datetime().nullable(),
  },
});
export class ChainFollower extends ChainFollowerSchema.class {}
ChainFollowerSchema.setClass(ChainFollower);
