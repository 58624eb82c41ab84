import type { ChainLogger } from '../types.ts';
import { decodeWord, encodeAggregate3 } from './abi.ts';
import {
  decodeGroup,
  ethCall,
  finish,
  prepare,
  type ReadCall,
  type ReadResult,
  single,
} from './read-calls.ts';
import type { RpcCall, RpcTransport } from './rpc/transport.ts';
import { address, chunk, toHex } from './util.ts';

export type { ReadCall, ReadResult } from './read-calls.ts';

/**
 * Many ERC-20 / native reads at once. With Multicall3 deployed they travel as a few `aggregate3`
 * eth_calls (allowFailure on every call); without it, as plain eth_calls in one JSON-RPC batch. Either
 * way each read gets its own result, so one broken token never fails the others.
 */

/** Calls per aggregate3; keeps each eth_call well under node gas caps (ERC-20 reads cost ~30k). */
export const MULTICALL_CHUNK_SIZE = 100;
/** A missing Multicall3 is looked for again after this long (it may be deployed later). */
export const MULTICALL_PROBE_TTL_MS = 60_000;

export type BlockTag = number | 'latest' | 'pending' | 'safe' | 'finalized';

export interface ContractReader {
  /** One result per call, in order. @throws AppError('unavailable') when the network cannot be reached. */
  read(calls: readonly ReadCall[], options?: { blockTag?: BlockTag }): Promise<ReadResult[]>;
  /** Whether reads currently go through Multicall3. */
  usesMulticall(): Promise<boolean>;
}

export function createContractReader(params: {
  transport: RpcTransport;
  /** Configured Multicall3 address; used only once code is found there. */
  multicall3?: string;
  logger: ChainLogger;
}): ContractReader {
  const { transport, logger } = params;
  const multicall3 = params.multicall3 ? address(params.multicall3, 'contracts.multicall3') : undefined;
  let probed: { present: boolean; at: number } | undefined;
  let probing: Promise<boolean> | undefined;

  async function probe(): Promise<boolean> {
    const code = await transport.request<string>('eth_getCode', [multicall3, 'latest']);
    probed = { present: typeof code === 'string' && code.length > 2, at: Date.now() };
    if (!probed.present)
      logger.warn('Multicall3 not deployed; reading with batched eth_call', { multicall3 });
    return probed.present;
  }

  async function usesMulticall(): Promise<boolean> {
    if (!multicall3) return false;
    if (probed && (probed.present || Date.now() - probed.at < MULTICALL_PROBE_TTL_MS)) return probed.present;
    // Concurrent first reads share one probe.
    probing ??= probe().finally(() => {
      probing = undefined;
    });
    return probing;
  }

  async function read(
    calls: readonly ReadCall[],
    options: { blockTag?: BlockTag } = {},
  ): Promise<ReadResult[]> {
    if (calls.length === 0) return [];
    const tag =
      typeof options.blockTag === 'number' ? toHex(options.blockTag) : (options.blockTag ?? 'latest');
    const prepared = calls.map(prepare);
    const results = new Array<ReadResult>(calls.length);
    const contractIdx = prepared.flatMap((p, i) => (p.call ? [i] : []));
    const groups = (await usesMulticall()) && multicall3 ? chunk(contractIdx, MULTICALL_CHUNK_SIZE) : [];
    const viaMulticall = new Set(groups.flat());

    // Everything that is not in a multicall group goes as its own call in the same JSON-RPC batch.
    const singles = prepared.flatMap((_, i) => (viaMulticall.has(i) ? [] : [i]));
    const rpc: RpcCall[] = [
      ...groups.map((g) => ethCall(multicall3!, encodeAggregate3(g.map((i) => prepared[i]!.call!)), tag)),
      ...singles.map((i) => {
        const p = prepared[i]!;
        return p.call
          ? ethCall(p.call.target, p.call.callData, tag)
          : { method: 'eth_getBalance', params: [p.owner, tag] };
      }),
    ];
    const outcomes = await transport.batch(rpc);

    const retry: number[] = [];
    groups.forEach((group, g) => {
      const decoded = decodeGroup(outcomes[g]!, group.length);
      if (!decoded) {
        logger.warn('aggregate3 failed; retrying its reads one by one', { calls: group.length });
        retry.push(...group);
        return;
      }
      group.forEach((i, k) => {
        const r = decoded[k]!;
        results[i] = r.success
          ? finish(calls[i]!, decodeWord(r.returnData))
          : { ok: false, error: 'call reverted' };
      });
    });
    singles.forEach((i, k) => {
      results[i] = single(calls[i]!, outcomes[groups.length + k]!);
    });
    if (retry.length > 0) {
      const again = await transport.batch(
        retry.map((i) => ethCall(prepared[i]!.call!.target, prepared[i]!.call!.callData, tag)),
      );
      retry.forEach((i, k) => {
        results[i] = single(calls[i]!, again[k]!);
      });
    }
    return results;
  }

  return { read, usesMulticall };
}
