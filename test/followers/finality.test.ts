import { hexlify, randomBytes, type Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvmClient } from '../../src/chains/evm/client.ts';
import type { EvmLog } from '../../src/chains/evm/index.ts';
import { type NetworkConfig, networkSchema } from '../../src/chains/networks.ts';
import { evmSource } from '../../src/followers/evm-source.ts';
import { judgeFinality, windowFloor } from '../../src/followers/finality.ts';
import { createFollower } from '../../src/followers/follower.ts';
import { claimFollowing } from '../../src/followers/store.ts';
import type { Consumer, FollowerEvent } from '../../src/followers/types.ts';
import type { Logger } from '../../src/lib/logger.ts';
import {
  deployRuntime,
  EMITTER_RUNTIME,
  fundedWallet,
  type TestChain,
  testChain,
} from '../evm/support/chain.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { type LyingNode, lyingNode } from '../support/lying-node.ts';

/**
 * Finality is the service's, never the node's word alone: against a node that answers `finalized`
 * with its latest block, moves it backwards, or reports a head below what the service holds final.
 */

let t: TestApp;
let chain: TestChain;
let sender: Wallet;
let emitter: string;
let node: LyingNode;
beforeAll(async () => {
  t = await startTestApp();
  chain = await testChain();
  sender = await fundedWallet(chain.provider);
  emitter = await deployRuntime(sender, EMITTER_RUNTIME);
  node = await lyingNode(chain.node.rpcUrl);
});
afterAll(async () => {
  await node?.close();
  await t?.close();
});

let seq = 0;
function network(extra: Record<string, unknown> = {}): NetworkConfig {
  return networkSchema.parse({
    id: `fin${++seq}`,
    kind: 'evm',
    chainId: chain.node.chainId,
    rpcUrls: [node.url],
    confirmations: [{ blocks: 6 }],
    pollIntervalMs: 50,
    ...extra,
  });
}

/** A logger that keeps what it is told (the follower's errors are part of the contract). */
function recordingLogger() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: (msg, fields) => void lines.push({ level: 'debug', msg, fields }),
    info: (msg, fields) => void lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => void lines.push({ level: 'error', msg, fields }),
    child: () => logger,
  };
  return { logger, lines };
}

/** A consumer that holds the topics of its blocks and lets go of them on a reorganisation. */
function recorder(stream: string, startBlock: number) {
  const held = new Map<string, number>();
  const events: FollowerEvent['type'][] = [];
  const consumer: Consumer = {
    stream,
    filter: { address: emitter },
    startBlock: () => startBlock,
    async handle(_tx, event) {
      events.push(event.type);
      if (event.type === 'reorg')
        for (const [topic, block] of held) if (block > event.ancestor.number) held.delete(topic);
      if (event.type === 'block')
        for (const log of event.logs as EvmLog[]) held.set(log.topics[0]!, log.blockNumber);
    },
  };
  return { consumer, held, events };
}

function followerFor(net: NetworkConfig, consumers: Consumer[], logger: Logger = t.app.logger) {
  return createFollower({
    network: net,
    source: evmSource(createEvmClient({ network: net }), net),
    consumers,
    fork: () => t.app.fork(),
    fence: async () => {},
    logger,
  });
}

async function emit(): Promise<{ topic: string; block: number }> {
  const topic = hexlify(randomBytes(32));
  const receipt = await (
    await sender.sendTransaction({ to: emitter, data: topic, gasLimit: 50_000n })
  ).wait();
  return { topic, block: receipt!.blockNumber };
}
const mine = (n: number) => chain.provider.send('anvil_mine', [`0x${n.toString(16)}`]);
const headNumber = () => chain.provider.getBlockNumber();

async function followerRow(net: NetworkConfig) {
  const { data, errors } = await t.graphql(
    await t.operatorToken(),
    '{ chainFollowers { network stream headBlock finalizedBlock nodeFinalizedBlock nodeProblem nodeProblemSince } }',
  );
  expect(errors).toBeUndefined();
  // biome-ignore lint/suspicious/noExplicitAny: GraphQL answer
  return (data as any).chainFollowers.find((r: any) => r.network === net.id);
}

describe('a node whose finalized block is its latest', () => {
  it('the final block stays finalityDepth behind the head; a revert before depth is a reorganisation', async () => {
    node.finalized = 'latest';
    node.head = undefined;
    const net = network(); // finalityDepth: the default of a chain not in the table, 64
    expect(net.finalityDepth).toBe(64);
    await mine(80);
    const rec = recorder('r', (await headNumber()) + 1);
    const follower = followerFor(net, [rec.consumer]);
    const snapshot = await chain.provider.send('evm_snapshot', []);
    const paid = await emit();
    await mine(2);
    const first = await follower.tick();
    expect(first.finalized).toBe(first.head.number - 64);
    expect(rec.held.get(paid.topic)).toBe(paid.block);

    // Three blocks deep, before the tier's 6: the chain goes back. The node's finalized block goes back
    // with it (it was its head): nothing is settled on its word meanwhile.
    await chain.provider.send('evm_revert', [snapshot]);
    const liar = await follower.tick();
    expect(liar.inconsistent).toMatch(/finalized block went back/);
    await mine(5);
    const result = await follower.tick();
    expect(result.inconsistent).toBeUndefined();
    expect(result.reorg?.number).toBe(paid.block - 1);
    expect(rec.held.has(paid.topic)).toBe(false);
    expect(rec.events.lastIndexOf('reorg')).toBeGreaterThan(-1);
  });

  it('a head that drops below the cursor is a reorganisation, found by hash', async () => {
    node.finalized = 1; // a node whose finality stalls: it never contradicts itself
    node.head = undefined;
    const net = network();
    const rec = recorder('h', (await headNumber()) + 1);
    const follower = followerFor(net, [rec.consumer]);
    const snapshot = await chain.provider.send('evm_snapshot', []);
    const paid = await emit();
    await mine(3);
    await follower.tick();
    expect(rec.held.has(paid.topic)).toBe(true);
    await chain.provider.send('evm_revert', [snapshot]); // the head is now below the cursor, and stays there
    const result = await follower.tick();
    expect(result.reorg?.number).toBe(paid.block - 1);
    expect(rec.held.has(paid.topic)).toBe(false);
  });
});

describe('a node that contradicts itself', () => {
  it('finalized going backwards: logged at error, shown in chainFollowers, nothing settles until it is consistent', async () => {
    node.head = undefined;
    await mine(20);
    const head = await headNumber();
    node.finalized = head - 5;
    const net = network({ finalityDepth: 2 });
    await claimFollowing(t.app.fork(), net.id, 'finality-test');
    const rec = recorder('b', head + 1);
    const { logger, lines } = recordingLogger();
    const follower = followerFor(net, [rec.consumer], logger);
    expect((await follower.tick()).finalized).toBe(head - 5);
    const before = await followerRow(net);
    expect(before).toMatchObject({
      finalizedBlock: head - 5,
      nodeFinalizedBlock: head - 5,
      nodeProblem: null,
    });

    node.finalized = head - 8;
    const event = await emit();
    await mine(3);
    const result = await follower.tick();
    expect(result.inconsistent).toBe(`the node's finalized block went back from ${head - 5} to ${head - 8}`);
    expect(result.finalized).toBe(head - 5);
    expect(rec.held.has(event.topic)).toBe(false); // no block reached the consumer
    expect(lines.filter((l) => l.level === 'error').map((l) => l.fields?.problem)).toEqual([
      result.inconsistent,
    ]);
    const shown = await followerRow(net);
    expect(shown).toMatchObject({ finalizedBlock: head - 5, nodeProblem: result.inconsistent });
    expect(shown.nodeProblemSince).toEqual(expect.any(String));
    const metrics = await fetch(`${t.http.url}/metrics`, {
      headers: { authorization: `Bearer ${await t.operatorToken()}` },
    });
    expect(await metrics.text()).toContain(`follower_node_inconsistent{network="${net.id}"} 1`);
    await follower.tick(); // still lying: logged once per problem
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);

    node.finalized = head - 4;
    const again = await follower.tick();
    expect(again.inconsistent).toBeUndefined();
    expect(again.finalized).toBe(head - 4);
    expect(rec.held.get(event.topic)).toBe(event.block);
    expect(await followerRow(net)).toMatchObject({
      nodeProblem: null,
      nodeProblemSince: null,
      nodeFinalizedBlock: head - 4,
    });
  });

  it('a head below the service’s final block: nothing is released or settled until the node is back', async () => {
    node.head = undefined;
    const net = network({ finalityDepth: 2, confirmations: [{ blocks: 1 }] });
    await claimFollowing(t.app.fork(), net.id, 'finality-test');
    const rec = recorder('l', (await headNumber()) + 1);
    const follower = followerFor(net, [rec.consumer]);
    const kept = await emit();
    await mine(6);
    node.finalized = kept.block + 3; // the node's word, and it keeps to it
    const first = await follower.tick();
    expect(first.finalized).toBe(kept.block + 3);
    expect(rec.held.get(kept.topic)).toBe(kept.block);

    node.head = kept.block - 1; // a node far behind (or lying): below blocks already final
    const result = await follower.tick();
    expect(result.inconsistent).toMatch(
      /head \d+ is below block \d+, which the service already treats as final/,
    );
    expect(result.reorg).toBeUndefined();
    expect(rec.held.get(kept.topic)).toBe(kept.block);
    expect((await followerRow(net)).nodeProblem).toBe(result.inconsistent);

    node.head = undefined;
    const back = await follower.tick();
    expect(back.inconsistent).toBeUndefined();
    expect(back.reorg).toBeUndefined();
    expect(rec.held.get(kept.topic)).toBe(kept.block);
    expect((await followerRow(net)).nodeProblem).toBeNull();
  });
});

describe('the rule', () => {
  it('final is the more conservative of the node’s finalized block and finalityDepth behind the head, never moving back', () => {
    expect(judgeFinality(undefined, 100, 100, 64)).toEqual({
      ok: true,
      state: { final: 36, nodeFinalized: 100 },
    });
    expect(judgeFinality(undefined, 100, 20, 64)).toEqual({
      ok: true,
      state: { final: 20, nodeFinalized: 20 },
    });
    expect(judgeFinality(undefined, 100, null, 64)).toEqual({
      ok: true,
      state: { final: 36, nodeFinalized: null },
    });
    expect(judgeFinality(undefined, 100, 500, 10).state.final).toBe(90); // a tag from a node further on
    expect(judgeFinality(undefined, 10, 10, 64).state.final).toBe(-1);
    // A shorter chain after a reorganisation above the final block: final stays where it was.
    expect(judgeFinality({ final: 36, nodeFinalized: 30 }, 98, 30, 64)).toEqual({
      ok: true,
      state: { final: 36, nodeFinalized: 30 },
    });
    expect(judgeFinality({ final: 36, nodeFinalized: 30 }, 99, 29, 64)).toMatchObject({ ok: false });
    expect(judgeFinality({ final: 36, nodeFinalized: 30 }, 35, 30, 64)).toMatchObject({ ok: false });
    expect(judgeFinality({ final: 36, nodeFinalized: 30 }, 36, null, 64).ok).toBe(true);
  });

  it('the window holds the deepest tier whatever finality says, at most its cap unless the tier needs more', () => {
    expect(windowFloor(1000, 999, 30, 2048)).toBe(971); // finalized = latest: still 30 blocks
    expect(windowFloor(1000, 900, 30, 2048)).toBe(901);
    expect(windowFloor(10_000, 0, 30, 2048)).toBe(10_000 - 2047); // finality stalled
    expect(windowFloor(10_000, 0, 5000, 2048)).toBe(5001);
    expect(windowFloor(1000, 1000, 0, 2048)).toBe(1001); // tron: solidified only, no window
  });

  it('finalityDepth defaults per known chain, else 64; the network file overrides it', () => {
    const depth = (chainId: number, extra: Record<string, unknown> = {}) =>
      networkSchema.parse({ id: 'x', kind: 'evm', chainId, rpcUrls: ['http://127.0.0.1:1'], ...extra })
        .finalityDepth;
    expect(depth(1)).toBe(64);
    expect(depth(56)).toBe(15);
    expect(depth(137)).toBe(256);
    expect(depth(43114)).toBe(12);
    expect(depth(999_999)).toBe(64);
    expect(depth(1, { finalityDepth: 100 })).toBe(100);
  });
});
