import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkConfig } from '../../src/chains/networks.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { batchConsumer } from '../../src/modules/batch/batch.consumer.ts';
import type { PayoutChains } from '../../src/modules/payout/payout.chain.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { foreignLog, header, routerStream } from './stream-harness.ts';

/**
 * The batches stream runs nothing for a block with no logs while no executed item waits for its
 * depth: only a log records an execution. Once one is recorded, or after a reorganisation, blocks
 * complete items again (batch-confirm.test.ts: items executed, then completed by the blocks after).
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const network = { id: 'eth', kind: 'evm', confirmations: [] } as unknown as NetworkConfig;
const consumer = batchConsumer(
  { chains: {} as PayoutChains, logger: createLogger('error') },
  network,
  `0x${'7'.repeat(40)}`,
);
const { block, afterTick } = routerStream(() => t, consumer);

describe('the batches stream on blocks with no logs', () => {
  it('completes nothing while no executed item waits, and looks again after logs or a reorganisation', async () => {
    // Not known yet: the block's pass runs and finds nothing waiting.
    expect(await block(100)).toBeGreaterThan(0);
    await afterTick(100);
    // Known now: empty blocks run nothing (a completion query each before).
    expect(await block(101)).toBe(0);
    await afterTick(101);
    expect(await block(102)).toBe(0);
    await afterTick(102);
    // A block with logs may record an execution: it looks again.
    expect(await block(103, [foreignLog(103)])).toBeGreaterThan(0);
    await afterTick(103);
    expect(await block(104)).toBe(0);
    await afterTick(104);
    // A reorganisation forgets what the stream knew.
    await t.app
      .fork()
      .transactional((tx) =>
        consumer.handle(tx, { type: 'reorg', ancestor: header(102), head: header(104) }),
      );
    expect(await block(103)).toBeGreaterThan(0);
  });

  it("trusts what a block transaction found only once the stream's cursor moved there", async () => {
    await afterTick(110); // a tick with nothing for the stream
    expect(await block(111, [foreignLog(111)])).toBeGreaterThan(0);
    // That transaction did not commit (the tick failed): the cursor is still below it.
    await afterTick(110);
    expect(await block(111)).toBeGreaterThan(0);
  });
});
