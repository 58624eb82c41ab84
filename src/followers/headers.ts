import type { LogChunk } from '../chains/evm/index.ts';
import type { BlockHeader } from '../chains/types.ts';
import type { ChainSource } from './types.ts';
import type { BlockWindow } from './window.ts';

/**
 * The follower's reads of final headers from the node: a block by number, the after-tick passes'
 * evidence block, and a backfill's next chunk with its last header.
 */
export function createHeaders(source: ChainSource, networkId: string) {
  /** The last evidence block read: final blocks never change, so one read serves every stream at it. */
  let evidenceHeader: BlockHeader | undefined;

  /** The header of final block `number` (below 0: before the first block). */
  async function finalHeader(number: number): Promise<BlockHeader> {
    if (number < 0) return { number: -1, hash: '', parentHash: '', timestamp: 0 };
    const [header] = await source.headers([number]);
    if (!header) throw new Error(`network ${networkId}: block ${number} has no header`);
    return header;
  }

  /** The header of final block `number` (the cursor's own when it is the cursor), read once. */
  async function evidenceAt(
    number: number,
    cursor: BlockHeader,
    window: BlockWindow | undefined,
  ): Promise<BlockHeader | undefined> {
    if (number < 0) return undefined;
    if (number === cursor.number && cursor.timestamp > 0) return cursor;
    if (evidenceHeader?.number !== number)
      evidenceHeader = window?.get(number) ?? (await finalHeader(number));
    return evidenceHeader;
  }

  /** The next final chunk with the header of its last block, or null when the range is done. */
  async function readAhead(
    chunks: AsyncGenerator<LogChunk>,
  ): Promise<{ chunk: LogChunk; to: BlockHeader } | null> {
    const next = await chunks.next();
    if (next.done) return null;
    const [to] = await source.headers([next.value.toBlock]);
    if (!to) throw new Error(`network ${networkId}: final block ${next.value.toBlock} has no header`);
    return { chunk: next.value, to };
  }

  return { finalHeader, evidenceAt, readAhead };
}

export type HeaderReads = ReturnType<typeof createHeaders>;
