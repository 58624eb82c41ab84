import { hexlify, randomBytes, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/chains/evm/client.ts';
import type { EvmLog } from '../../src/chains/evm/index.ts';
import type { NetworkConfig } from '../../src/chains/networks.ts';
import type { BlockHeader } from '../../src/chains/types.ts';
import { evmSource } from '../../src/followers/evm-source.ts';
import { createFollower } from '../../src/followers/follower.ts';
import type { Consumer, FollowerEvent } from '../../src/followers/types.ts';
import {
  deployRuntime,
  EMITTER_RUNTIME,
  fundedWallet,
  type TestChain,
  testChain,
} from '../evm/support/chain.ts';
import { type RpcProxy, rpcError, startProxy } from '../evm/support/servers.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** The chain follower on its own, with recording consumers: cursors per stream, reorgs, finality. */

let t: TestApp;
let chain: TestChain;
let sender: Wallet;
let emitter: string;
const proxies: RpcProxy[] = [];
beforeAll(async () => {
  t = await startTestApp();
  chain = await testChain();
  sender = await fundedWallet(chain.provider);
  emitter = await deployRuntime(sender, EMITTER_RUNTIME);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await t?.close();
});

let networkSeq = 0;
/** A network entry of its own (cursors and window are per network id), on `rpcUrl`. */
function network(rpcUrl = chain.node.rpcUrl): NetworkConfig {
  return {
    id: `net${++networkSeq}`,
    kind: 'evm',
    relay: {},
    chainId: chain.node.chainId,
    rpcUrls: [rpcUrl],
    confirmations: [{ blocks: 1 }],
    tokens: [],
    contracts: {},
    pollIntervalMs: 50,
    finalityDepth: 64,
  };
}

/** A consumer that keeps the topics it holds, as a domain keeps its derived rows. */
function recorder(stream: string, startBlock: number) {
  const held = new Map<string, number>();
  const events: FollowerEvent['type'][] = [];
  let ancestor: BlockHeader | undefined;
  const consumer: Consumer = {
    stream,
    filter: { address: emitter },
    startBlock: () => startBlock,
    async handle(_tx, event) {
      events.push(event.type);
      if (event.type === 'reorg') {
        ancestor = event.ancestor;
        for (const [topic, block] of held) if (block > event.ancestor.number) held.delete(topic);
      }
      if (event.type === 'block') {
        for (const log of event.logs as EvmLog[]) {
          expect(held.has(log.topics[0]!)).toBe(false); // never twice
          held.set(log.topics[0]!, log.blockNumber);
        }
      }
    },
  };
  return { consumer, held, events, ancestor: () => ancestor };
}

function followerFor(
  net: NetworkConfig,
  consumers: Consumer[],
  logs?: { initialRange: number; maxRange: number },
) {
  return createFollower({
    network: net,
    source: evmSource(createEvmClient({ network: net, ...(logs ? { logs } : {}) }), net),
    consumers,
    fork: () => t.app.fork(),
    fence: async () => {},
    logger: t.app.logger,
  });
}

/** Emits one event with a random topic; returns the topic and its block. */
async function emit(): Promise<{ topic: string; block: number }> {
  const topic = hexlify(randomBytes(32));
  const receipt = await (
    await sender.sendTransaction({ to: emitter, data: topic, gasLimit: 50_000n })
  ).wait();
  return { topic, block: receipt!.blockNumber };
}

const mine = (n: number) => chain.provider.send('anvil_mine', [`0x${n.toString(16)}`]);

describe('streams', () => {
  it('each stream gets every log after its own start exactly once, across final and unfinalized blocks', async () => {
    const start = (await chain.provider.getBlockNumber()) + 1;
    const emitted: { topic: string; block: number }[] = [];
    for (let i = 0; i < 12; i++) {
      emitted.push(await emit());
      await mine(i % 3 === 0 ? 30 : 2); // some of them end up deeper than finality (64), some not
    }
    const later = emitted[6]!.block;
    const net = network();
    const a = recorder('a', start);
    const b = recorder('b', later);
    const follower = followerFor(net, [a.consumer, b.consumer]);
    for (let i = 0; i < 5 && !(await follower.tick()).caughtUp; i++);
    expect([...a.held.keys()].sort()).toEqual(emitted.map((e) => e.topic).sort());
    expect([...b.held.keys()].sort()).toEqual(
      emitted
        .filter((e) => e.block >= later)
        .map((e) => e.topic)
        .sort(),
    );
    // Nothing new: ticks emit no block events, and a fresh follower (a restart) resumes at the cursors.
    const before = a.events.length;
    await follower.tick();
    await followerFor(net, [a.consumer, b.consumer]).tick();
    expect(a.events.length).toBe(before);
  });
});

describe('final range, read ahead', () => {
  it('a chunk whose transaction fails (the next one already read) is rolled back; a restart applies every log once, in order', async () => {
    await t.app.fork().execute('create table if not exists test_chunks (stream text, topic text, block int)');
    const start = (await chain.provider.getBlockNumber()) + 1;
    const emitted: { topic: string; block: number }[] = [];
    for (let i = 0; i < 6; i++) {
      emitted.push(await emit());
      await mine(4);
    }
    await mine(70); // every one of them final (finalityDepth 64)
    const net = network();
    let crashAt: number | undefined = emitted[3]!.block;
    const seen: number[] = [];
    const applier: Consumer = {
      stream: 'chunks',
      filter: { address: emitter },
      startBlock: () => start,
      async handle(tx, event) {
        if (event.type !== 'block') return;
        seen.push(event.from);
        for (const log of event.logs)
          await tx.execute('insert into test_chunks (stream, topic, block) values (?, ?, ?)', [
            net.id,
            log.topics[0],
            log.blockNumber,
          ]);
        if (crashAt !== undefined && event.from <= crashAt && crashAt <= event.to.number)
          throw new Error('crash inside the chunk');
      },
    };
    // Chunks of 5 blocks that never grow: one log per chunk, many chunks in the final range.
    const small = { initialRange: 5, maxRange: 5 };
    await expect(followerFor(net, [applier], small).tick()).rejects.toThrow(/crash inside/);
    const held = () =>
      t.app
        .fork()
        .execute<{ topic: string }[]>('select topic from test_chunks where stream = ? order by block', [
          net.id,
        ]);
    // Everything before the failed chunk committed, nothing of it or after it.
    expect((await held()).map((r) => r.topic)).toEqual(emitted.slice(0, 3).map((e) => e.topic));
    // Chunks were handed over in chain order, each once, up to the failure.
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
    crashAt = undefined;
    const restarted = followerFor(net, [applier], small);
    for (let i = 0; i < 5 && !(await restarted.tick()).caughtUp; i++);
    expect((await held()).map((r) => r.topic)).toEqual(emitted.map((e) => e.topic));
  });
});

describe('two leaders at once', () => {
  it('never both apply a range: the cursor moves compare-and-set, and the loser rolls back', async () => {
    await t.app.fork().execute('create table if not exists test_applied (stream text, topic text)');
    const start = (await chain.provider.getBlockNumber()) + 1;
    const emitted = [await emit(), await emit()];
    await mine(2);
    const net = network();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let paused!: () => void;
    const pausedNow = new Promise<void>((resolve) => {
      paused = resolve;
    });
    /** Writes one row per log in the follower's transaction; `hold` waits inside it until released. */
    const applier = (hold: boolean): Consumer => ({
      stream: 'cas',
      filter: { address: emitter },
      startBlock: () => start,
      async handle(tx, event) {
        if (event.type !== 'block') return;
        for (const log of event.logs)
          await tx.execute('insert into test_applied (stream, topic) values (?, ?)', [net.id, log.topics[0]]);
        if (hold && event.logs.length > 0) {
          paused();
          await gate;
        }
      },
    });
    // A partitioned old leader reads the range and stalls inside its transaction; the new leader applies it.
    const stale = followerFor(net, [applier(true)]).tick();
    await pausedNow;
    await followerFor(net, [applier(false)]).tick();
    release();
    await expect(stale).rejects.toThrow(/cursor moved/);
    const rows = await t.app
      .fork()
      .execute<{ topic: string; n: string }[]>(
        'select topic, count(*)::text as n from test_applied where stream = ? group by topic',
        [net.id],
      );
    expect(rows.map((r) => [r.topic, r.n]).sort()).toEqual(emitted.map((e) => [e.topic, '1']).sort());
  });
});

describe('reorganisations', () => {
  it('consumers are told the common ancestor first, then the new chain, also by a follower that restarted', async () => {
    const net = network();
    const rec = recorder('r', (await chain.provider.getBlockNumber()) + 1);
    const snapshot = await chain.provider.send('evm_snapshot', []);
    const ancestor = await chain.provider.getBlock('latest');
    const lost = await emit();
    await mine(2);
    await followerFor(net, [rec.consumer]).tick();
    expect(rec.held.has(lost.topic)).toBe(true);

    // Replaced while nobody follows: a new chain of other blocks at the same heights, and longer.
    await chain.provider.send('evm_revert', [snapshot]);
    await mine(1);
    const kept = await emit();
    await mine(3);
    const restarted = followerFor(net, [rec.consumer]);
    const result = await restarted.tick();
    expect(result.reorg?.number).toBe(ancestor!.number);
    expect(rec.ancestor()?.hash).toBe(ancestor!.hash);
    expect(rec.events.lastIndexOf('reorg')).toBeLessThan(rec.events.lastIndexOf('block'));
    expect(rec.held.has(lost.topic)).toBe(false);
    expect(rec.held.has(kept.topic)).toBe(true);
  });

  it('anvil_reorg of the head blocks: the orphaned log is undone, the re-included one seen once', async () => {
    const net = network();
    const rec = recorder('o', (await chain.provider.getBlockNumber()) + 1);
    const follower = followerFor(net, [rec.consumer]);
    const first = await emit();
    await mine(1);
    await follower.tick();
    expect(rec.held.get(first.topic)).toBe(first.block);
    await chain.provider.send('anvil_reorg', [3, []]); // the event's block and the two above, replaced empty
    await mine(1);
    const result = await follower.tick();
    expect(result.reorg?.number).toBe(first.block - 1);
    expect(rec.held.has(first.topic)).toBe(false);
  });
});

describe('finality', () => {
  it('the node’s finalized block where it serves one, else finalityDepth behind the head', async () => {
    const withTag = network();
    const head = await chain.provider.getBlockNumber();
    const tagged = await followerFor(withTag, []).tick();
    const finalized = await chain.provider.send('eth_getBlockByNumber', ['finalized', false]);
    expect(tagged.finalized).toBe(Number(finalized.number));

    const proxy = await startProxy(chain.node.rpcUrl);
    proxies.push(proxy);
    proxy.hook = (call) =>
      call.method === 'eth_getBlockByNumber' && (call.params as unknown[])[0] === 'finalized'
        ? rpcError(call, -32602, 'invalid block tag')
        : undefined;
    const untagged = { ...network(proxy.url), finalityDepth: 10 };
    const result = await followerFor(untagged, []).tick();
    expect(result.finalized).toBe(result.head.number - 10);
    expect(result.head.number).toBeGreaterThanOrEqual(head);
  });
});

describe('the cost of a tick', () => {
  it('takes every stream’s new blocks in one transaction, their logs in one read, each stream its own', async () => {
    const proxy = await startProxy(chain.node.rpcUrl);
    proxies.push(proxy);
    const calls: string[] = [];
    proxy.hook = (call) => {
      calls.push(call.method);
      return undefined;
    };
    const net = network(proxy.url);
    const start = (await chain.provider.getBlockNumber()) + 1;
    const [all, also] = [recorder('all', start), recorder('also', start)];
    const chosen = recorder('chosen', start);
    const topicOnly = { address: emitter, topics: [] as string[] };
    chosen.consumer = { ...chosen.consumer, filter: topicOnly };
    let transactions = 0;
    const follower = createFollower({
      network: net,
      source: evmSource(createEvmClient({ network: net }), net),
      consumers: [all.consumer, also.consumer, chosen.consumer],
      fork: () => t.app.fork(),
      fence: async () => {
        transactions++; // the first statement of every follower transaction
      },
      logger: t.app.logger,
    });
    await mine(1);
    await follower.tick(); // the streams' cursors stored
    const one = await emit();
    const two = await emit();
    topicOnly.topics = [two.topic];
    transactions = 0;
    calls.length = 0;
    expect((await follower.tick()).caughtUp).toBe(true);
    expect(transactions).toBe(1);
    // One eth_getLogs per new block (one batch), not one per stream and block.
    expect(calls.filter((m) => m === 'eth_getLogs')).toHaveLength(two.block - one.block + 1);
    expect([...all.held.keys()]).toEqual([one.topic, two.topic]);
    expect([...also.held.keys()]).toEqual([one.topic, two.topic]);
    expect([...chosen.held.keys()]).toEqual([two.topic]);
  });
});
