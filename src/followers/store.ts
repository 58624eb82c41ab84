import type { BlockHeader } from '../chains/types.ts';
import type { EntityManager } from '../db/orm.ts';
import type { FinalityState } from './finality.ts';

/** The follower's rows: stream cursors, the window of unfinalized headers, and what it last saw. */

interface BlockRow {
  number: string;
  hash: string;
  parent_hash: string;
  timestamp: string;
}

const header = (r: BlockRow): BlockHeader => ({
  number: Number(r.number),
  hash: r.hash,
  parentHash: r.parent_hash,
  timestamp: Number(r.timestamp),
});

/** The stream's cursor, or null before its first block. */
export async function loadCursor(
  em: EntityManager,
  network: string,
  stream: string,
): Promise<BlockHeader | null> {
  const [row] = await em.execute<{ number: string; hash: string; timestamp: string }[]>(
    `select block_number as number, block_hash as hash, block_timestamp as timestamp
       from chain_cursors where network = ? and stream = ?`,
    [network, stream],
  );
  return row
    ? { number: Number(row.number), hash: row.hash, parentHash: '', timestamp: Number(row.timestamp) }
    : null;
}

/** Every stream's cursor on a network, by stream (a stream before its first block has none). */
export async function loadCursors(em: EntityManager, network: string): Promise<Map<string, BlockHeader>> {
  const rows = await em.execute<{ stream: string; number: string; hash: string; timestamp: string }[]>(
    `select stream, block_number as number, block_hash as hash, block_timestamp as timestamp
       from chain_cursors where network = ?`,
    [network],
  );
  return new Map(
    rows.map((r) => [
      r.stream,
      { number: Number(r.number), hash: r.hash, parentHash: '', timestamp: Number(r.timestamp) },
    ]),
  );
}

/** Sets a stream's cursor unconditionally (operators' tools and tests; the follower uses {@link moveCursor}). */
export async function saveCursor(em: EntityManager, network: string, stream: string, block: BlockHeader) {
  await em.execute(
    `insert into chain_cursors (network, stream, block_number, block_hash, block_timestamp, updated_at)
     values (?, ?, ?, ?, ?, now())
     on conflict (network, stream) do update set block_number = excluded.block_number,
       block_hash = excluded.block_hash, block_timestamp = excluded.block_timestamp, updated_at = now()`,
    [network, stream, block.number, block.hash, block.timestamp],
  );
}

/** Another writer moved a stream's cursor since this follower read it (two leaders for a moment). */
export class CursorMoved extends Error {
  constructor(network: string, stream: string) {
    super(
      `network ${network}: the ${stream} cursor moved under this follower; another one applied the range`,
    );
    this.name = 'CursorMoved';
  }
}

/**
 * Moves a stream's cursor from `expected` (null: the stream has no cursor yet) to `block`, compare-and-
 * set: when the stored cursor is no longer `expected`, another follower applied the range first and
 * this throws {@link CursorMoved}, rolling back everything the caller's transaction derived from it.
 * Leadership is fenced too (leadership.ts), but a fence checked before the commit cannot stop a leader
 * that loses its lock between the check and the commit; this comparison is made by the write itself.
 */
export async function moveCursor(
  em: EntityManager,
  network: string,
  stream: string,
  expected: Pick<BlockHeader, 'number' | 'hash'> | null,
  block: BlockHeader,
): Promise<void> {
  const moved = expected
    ? await em.execute<{ ok: number }[]>(
        `update chain_cursors set block_number = ?, block_hash = ?, block_timestamp = ?, updated_at = now()
          where network = ? and stream = ? and block_number = ? and block_hash = ?
          returning 1 as ok`,
        [block.number, block.hash, block.timestamp, network, stream, expected.number, expected.hash],
      )
    : await em.execute<{ ok: number }[]>(
        `insert into chain_cursors (network, stream, block_number, block_hash, block_timestamp, updated_at)
         values (?, ?, ?, ?, ?, now()) on conflict (network, stream) do nothing returning 1 as ok`,
        [network, stream, block.number, block.hash, block.timestamp],
      );
  if (moved.length === 0) throw new CursorMoved(network, stream);
}

/** One stream's cursor move of {@link moveCursors}. */
export interface CursorMove {
  stream: string;
  /** The cursor the move was decided from (null: the stream has none yet). */
  expected: Pick<BlockHeader, 'number' | 'hash'> | null;
  block: BlockHeader;
}

/**
 * {@link moveCursor} for several streams of a network, each compare-and-set, the moves of stored
 * cursors in one statement: any stream whose cursor is no longer the expected one throws
 * {@link CursorMoved}.
 */
export async function moveCursors(em: EntityManager, network: string, moves: readonly CursorMove[]) {
  for (const m of moves) if (!m.expected) await moveCursor(em, network, m.stream, null, m.block);
  const updates = moves.filter((m) => m.expected);
  if (updates.length === 0) return;
  const rows = updates.map((m) => ({
    stream: m.stream,
    number: m.block.number,
    hash: m.block.hash,
    timestamp: m.block.timestamp,
    expected_number: m.expected!.number,
    expected_hash: m.expected!.hash,
  }));
  const moved = await em.execute<{ stream: string }[]>(
    `update chain_cursors c set block_number = m.number, block_hash = m.hash, block_timestamp = m.timestamp,
            updated_at = now()
       from jsonb_to_recordset(?::jsonb) as m(stream text, number bigint, hash text, timestamp bigint,
                                              expected_number bigint, expected_hash text)
      where c.network = ? and c.stream = m.stream and c.block_number = m.expected_number
        and c.block_hash = m.expected_hash
      returning c.stream`,
    [JSON.stringify(rows), network],
  );
  const done = new Set(moved.map((r) => r.stream));
  const lost = updates.find((m) => !done.has(m.stream));
  if (lost) throw new CursorMoved(network, lost.stream);
}

/** The stored window from `floor` up: its longest hash-linked run (anything after a gap is refetched). */
export async function loadWindow(em: EntityManager, network: string, floor: number): Promise<BlockHeader[]> {
  const rows = await em.execute<BlockRow[]>(
    'select number, hash, parent_hash, timestamp from chain_blocks where network = ? and number >= ? order by number',
    [network, floor],
  );
  const blocks: BlockHeader[] = [];
  for (const row of rows.map(header)) {
    const last = blocks.at(-1);
    if (last && (row.number !== last.number + 1 || row.parentHash !== last.hash)) break;
    blocks.push(row);
  }
  return blocks;
}

/**
 * Writes what a window sync learnt: rows from `from` up replaced (a reorganisation), `added` stored,
 * rows up to `pruneTo` dropped (final now), and the head the follower saw.
 */
export async function saveWindow(
  em: EntityManager,
  network: string,
  change: {
    from?: number;
    added: BlockHeader[];
    pruneTo: number;
    head: BlockHeader;
    finalized: number;
    /** The highest `finalized` block the node reported (null or absent: none). */
    nodeFinalized?: number | null;
  },
): Promise<void> {
  if (change.from !== undefined) {
    await em.execute('delete from chain_blocks where network = ? and number >= ?', [network, change.from]);
  }
  // One statement: what is final now dropped, the new headers stored (above the pruned ones, so the two
  // never touch a row), the head recorded; a tick's window costs one round trip.
  await em.execute(
    `with pruned as (delete from chain_blocks where network = ? and number <= ?),
          added as (
            insert into chain_blocks (network, number, hash, parent_hash, timestamp)
            select ?, b.number, b.hash, b."parentHash", b.timestamp
              from jsonb_to_recordset(?::jsonb) as b(number bigint, hash text, "parentHash" text, timestamp bigint)
             where b.number > ?
            on conflict (network, number) do update set hash = excluded.hash, parent_hash = excluded.parent_hash,
              timestamp = excluded.timestamp)
     update chain_followers set head_number = ?, head_timestamp = ?, finalized_number = ?,
            node_finalized_number = ?, node_problem = null, node_problem_since = null, ticked_at = now()
      where network = ?`,
    [
      network,
      change.pruneTo,
      network,
      JSON.stringify(change.added),
      change.pruneTo,
      change.head.number,
      change.head.timestamp,
      change.finalized,
      change.nodeFinalized ?? null,
      network,
    ],
  );
}

/** What the service holds final on a network (finality.ts), or undefined before its first tick. */
export async function loadFinality(em: EntityManager, network: string): Promise<FinalityState | undefined> {
  const [row] = await em.execute<{ finalized: string | null; node: string | null }[]>(
    `select finalized_number as finalized, node_finalized_number as node from chain_followers where network = ?`,
    [network],
  );
  if (!row || row.finalized === null) return undefined;
  return { final: Number(row.finalized), nodeFinalized: row.node === null ? null : Number(row.node) };
}

/**
 * Records that the node contradicts itself (operators see it in `chainFollowers`): its head as it now
 * says, the problem, and since when (kept while the problem lasts). The final block is left as it was.
 */
export async function saveNodeProblem(
  em: EntityManager,
  network: string,
  head: BlockHeader,
  problem: string,
): Promise<void> {
  await em.execute(
    `update chain_followers set head_number = ?, head_timestamp = ?, node_problem = ?,
            node_problem_since = coalesce(node_problem_since, now()), ticked_at = now()
      where network = ?`,
    [head.number, head.timestamp, problem, network],
  );
}

/** Records that `owner` now follows `network` (operators, readiness and metrics read it). */
export async function claimFollowing(em: EntityManager, network: string, owner: string): Promise<void> {
  await em.execute(
    `insert into chain_followers (network, owner, since) values (?, ?, now())
     on conflict (network) do update set owner = excluded.owner, since = excluded.since`,
    [network, owner],
  );
}

/** One stream of a followed network, as operators and metrics see it. */
export interface StreamStatus {
  network: string;
  stream: string;
  /** The process that leads the network, and since when. */
  owner: string | null;
  since: Date | null;
  headBlock: number | null;
  /** The service's final block: never newer than the node's `finalized` nor `finalityDepth` behind the head. */
  finalizedBlock: number | null;
  /** The highest `finalized` block the node reported (null: it serves none). */
  nodeFinalizedBlock: number | null;
  /** Why the node is not trusted now; nothing settles on the network while it is set. */
  nodeProblem: string | null;
  nodeProblemSince: Date | null;
  cursorBlock: number;
  /** Head minus cursor, in blocks and in the chain's seconds (null before the first tick). */
  lagBlocks: number | null;
  lagSeconds: number | null;
  tickedAt: Date | null;
}

/** Every stream's cursor with its network's head: how far behind each consumer is. */
export async function followerStatus(em: EntityManager): Promise<StreamStatus[]> {
  const rows = await em.execute<
    {
      network: string;
      stream: string;
      owner: string | null;
      since: Date | string | null;
      head_number: string | null;
      head_timestamp: string | null;
      finalized_number: string | null;
      node_finalized_number: string | null;
      node_problem: string | null;
      node_problem_since: Date | string | null;
      block_number: string;
      block_timestamp: string;
      ticked_at: Date | string | null;
    }[]
  >(
    `select c.network, c.stream, f.owner, f.since, f.head_number, f.head_timestamp, f.finalized_number,
            f.node_finalized_number, f.node_problem, f.node_problem_since, c.block_number, c.block_timestamp, f.ticked_at
       from chain_cursors c left join chain_followers f on f.network = c.network
      order by c.network, c.stream`,
  );
  const num = (v: string | null) => (v === null ? null : Number(v));
  // Raw rows carry timestamps as the driver's text; the GraphQL DateTime wants Dates.
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  return rows.map((r) => {
    const head = num(r.head_number);
    const headTime = num(r.head_timestamp);
    const cursor = Number(r.block_number);
    const cursorTime = Number(r.block_timestamp);
    return {
      network: r.network,
      stream: r.stream,
      owner: r.owner,
      since: date(r.since),
      headBlock: head,
      finalizedBlock: num(r.finalized_number),
      nodeFinalizedBlock: num(r.node_finalized_number),
      nodeProblem: r.node_problem,
      nodeProblemSince: date(r.node_problem_since),
      cursorBlock: cursor,
      lagBlocks: head === null ? null : Math.max(0, head - cursor),
      lagSeconds: headTime === null || cursorTime === 0 ? null : Math.max(0, headTime - cursorTime),
      tickedAt: date(r.ticked_at),
    };
  });
}
