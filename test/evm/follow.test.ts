import { hexlify, randomBytes, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvmClient, type EvmClient } from '../../src/chains/evm/client.ts';
import type { EvmLog, LogRange } from '../../src/chains/evm/logs-parse.ts';
import type { LogChunk, LogScanOptions } from '../../src/chains/evm/logs-scan.ts';
import { AppError } from '../../src/errors.ts';
import {
  deployRuntime,
  EMITTER_RUNTIME,
  fundedWallet,
  networkOf,
  type TestChain,
  testChain,
} from './support/chain.ts';
import { type JsonRpcCall, type RpcProxy, rpcError, startProxy } from './support/servers.ts';

/** Events spread over a few hundred blocks of the shared chain, from two emitters of our own. */
const EVENTS = 40;

let chain: TestChain;
let sender: Wallet;
let emitters: string[];
let range: LogRange;
/** (block, topic) of every event we emitted, in chain order. */
let expected: { blockNumber: number; topic: string; address: string }[];
const proxies: RpcProxy[] = [];

beforeAll(async () => {
  chain = await testChain();
  sender = await fundedWallet(chain.provider);
  emitters = [await deployRuntime(sender, EMITTER_RUNTIME), await deployRuntime(sender, EMITTER_RUNTIME)];
  expected = [];
  let fromBlock = 0;
  for (let i = 0; i < EVENTS; i++) {
    const topic = hexlify(randomBytes(32));
    const to = emitters[i % 2]!;
    const receipt = await (await sender.sendTransaction({ to, data: topic, gasLimit: 50_000n })).wait();
    if (i === 0) fromBlock = receipt!.blockNumber;
    expected.push({ blockNumber: receipt!.blockNumber, topic, address: to });
    // Gaps of varying size, some empty stretches longer than any chunk.
    await chain.provider.send('anvil_mine', [`0x${(i % 7 === 0 ? 40 : 1 + (i % 5)).toString(16)}`]);
  }
  range = { fromBlock, toBlock: await chain.provider.getBlockNumber(), address: emitters };
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
});

async function proxy(hook?: RpcProxy['hook']): Promise<RpcProxy> {
  const p = await startProxy(chain.node.rpcUrl);
  p.hook = hook;
  proxies.push(p);
  return p;
}

const clientOn = (url: string, logs?: Partial<LogScanOptions>, rpc = {}): EvmClient =>
  createEvmClient({ network: networkOf(chain.node, [url]), logs, rpc });

const summary = (logs: EvmLog[]) =>
  logs.map((l) => ({ blockNumber: l.blockNumber, topic: l.topics[0], address: l.address }));

async function collect(client: EvmClient, r: LogRange = range): Promise<LogChunk[]> {
  const chunks: LogChunk[] = [];
  for await (const c of client.scanLogs(r)) chunks.push(c);
  return chunks;
}

/** Chunks must tile the range exactly, in order, and together hold every event exactly once. */
function expectComplete(chunks: LogChunk[], r: LogRange = range): void {
  expect(chunks[0]!.fromBlock).toBe(r.fromBlock);
  expect(chunks.at(-1)!.toBlock).toBe(r.toBlock);
  chunks.forEach((c, i) => {
    if (i > 0) expect(c.fromBlock).toBe(chunks[i - 1]!.toBlock + 1);
    for (const log of c.logs)
      expect(log.blockNumber >= c.fromBlock && log.blockNumber <= c.toBlock).toBe(true);
  });
  expect(summary(chunks.flatMap((c) => c.logs))).toEqual(expected);
}

const blockSpan = (call: JsonRpcCall) => {
  const f = call.params[0] as { fromBlock: string; toBlock: string };
  return Number(BigInt(f.toBlock) - BigInt(f.fromBlock)) + 1;
};

describe('chain following', () => {
  it('spans a few hundred blocks', () => {
    expect(range.toBlock - range.fromBlock).toBeGreaterThan(200);
  });

  it('reads headers that chain together and match the node', async () => {
    const client = clientOn(chain.node.rpcUrl);
    const head = await client.getBlockNumber();
    expect(head).toBeGreaterThanOrEqual(range.toBlock);
    const numbers = [range.fromBlock, range.fromBlock + 1, range.fromBlock + 2];
    const headers = await client.getBlockHeaders(numbers);
    const block = await chain.provider.getBlock(range.fromBlock);
    expect(headers[0]).toEqual({
      number: range.fromBlock,
      hash: block!.hash,
      parentHash: block!.parentHash,
      timestamp: block!.timestamp,
    });
    expect(headers[1]!.parentHash).toBe(headers[0]!.hash);
    expect(headers[2]!.parentHash).toBe(headers[1]!.hash);
    expect(await client.getBlockHeader(range.fromBlock)).toEqual(headers[0]);
    expect((await client.getBlockHeader('latest'))!.number).toBeGreaterThanOrEqual(head);
    expect(await client.getBlockHeader(head + 1_000_000)).toBeNull();
  });

  it('gets every log of a range in one call and filters by topic', async () => {
    const client = clientOn(chain.node.rpcUrl);
    expect(summary(await client.getLogs(range))).toEqual(expected);
    const one = expected[17]!;
    expect(summary(await client.getLogs({ ...range, topics: [one.topic] }))).toEqual([one]);
    expect(summary(await client.getLogs({ ...range, address: emitters[0] }))).toEqual(
      expected.filter((e) => e.address === emitters[0]),
    );
    expect(await client.getLogs({ ...range, fromBlock: range.toBlock + 1 })).toEqual([]);
  });

  it('scans in adaptive chunks that grow after successes and cover the range exactly once', async () => {
    const client = clientOn(chain.node.rpcUrl, { initialRange: 8, maxRange: 64, growAfter: 2 });
    const chunks = await collect(client);
    expectComplete(chunks);
    const sizes = chunks.map((c) => c.toBlock - c.fromBlock + 1);
    expect(sizes[0]).toBe(8);
    expect(Math.max(...sizes)).toBe(64);
  });

  it('lets a caller checkpoint after a chunk and resume from there', async () => {
    const client = clientOn(chain.node.rpcUrl, { initialRange: 50 });
    const first: LogChunk[] = [];
    for await (const c of client.scanLogs(range)) {
      first.push(c);
      if (first.length === 2) break; // e.g. the process stopped after saving this checkpoint
    }
    const rest = await collect(client, { ...range, fromBlock: first.at(-1)!.toBlock + 1 });
    expectComplete([...first, ...rest]);
  });

  it('learns a provider block-range limit and never exceeds it again', async () => {
    const LIMIT = 50;
    const spans: number[] = [];
    const p = await proxy((call) => {
      if (call.method !== 'eth_getLogs') return undefined;
      spans.push(blockSpan(call));
      return blockSpan(call) > LIMIT
        ? rpcError(call, -32600, `exceed maximum block range: ${LIMIT}`)
        : undefined;
    });
    const client = clientOn(p.url, { initialRange: 2_000 });
    expectComplete(await collect(client));
    expect(spans[0]).toBeGreaterThan(LIMIT);
    expect(spans.filter((s) => s > LIMIT)).toHaveLength(1);
  });

  it('follows a "too many results, try this range" hint', async () => {
    const MAX_RESULTS = 5;
    let refusals = 0;
    const p = await proxy(async (call) => {
      if (call.method !== 'eth_getLogs') return undefined;
      const res = await fetch(chain.node.rpcUrl, {
        method: 'POST',
        body: JSON.stringify(call),
        headers: { 'content-type': 'application/json' },
      });
      const logs = ((await res.json()) as { result: { blockNumber: string }[] }).result;
      if (logs.length <= MAX_RESULTS) return undefined;
      refusals++;
      const from = (call.params[0] as { fromBlock: string }).fromBlock;
      const end = `0x${(Number(logs[MAX_RESULTS]!.blockNumber) - 1).toString(16)}`;
      return rpcError(
        call,
        -32005,
        `query returned more than ${MAX_RESULTS} results. Try with this block range [${from}, ${end}].`,
      );
    });
    const chunks = await collect(clientOn(p.url, { initialRange: 1_000 }));
    expectComplete(chunks);
    expect(refusals).toBeGreaterThan(0);
    for (const c of chunks) expect(c.logs.length).toBeLessThanOrEqual(MAX_RESULTS);
  });

  it('shrinks the range when large queries time out, instead of hanging', async () => {
    const SLOW_ABOVE = 30;
    const p = await proxy((call) =>
      call.method === 'eth_getLogs' && blockSpan(call) > SLOW_ABOVE ? 'hang' : undefined,
    );
    const started = Date.now();
    const chunks = await collect(clientOn(p.url, { initialRange: 200, queryTimeoutMs: 150 }));
    expectComplete(chunks);
    for (const c of chunks) expect(c.toBlock - c.fromBlock + 1).toBeLessThanOrEqual(SLOW_ABOVE);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('gives up with unavailable when even one block cannot be read, or no node answers', async () => {
    const p = await proxy((call) =>
      call.method === 'eth_getLogs' ? rpcError(call, -32005, 'query timeout exceeded') : undefined,
    );
    const stuck = await collect(clientOn(p.url, { initialRange: 4 })).catch((e: unknown) => e);
    expect(stuck).toBeInstanceOf(AppError);
    expect(stuck).toMatchObject({ code: 'unavailable' });

    const down = clientOn('http://127.0.0.1:1', {}, { retries: 0 });
    const started = Date.now();
    await expect(collect(down)).rejects.toMatchObject({ code: 'unavailable' });
    await expect(down.getBlockNumber()).rejects.toMatchObject({ code: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(2_000);

    const other = await proxy((call) =>
      call.method === 'eth_getLogs' ? rpcError(call, -32602, 'invalid filter') : undefined,
    );
    await expect(collect(clientOn(other.url))).rejects.toMatchObject({ code: 'unavailable' });
  });
});
