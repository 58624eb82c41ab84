import { AbiCoder, toBeHex, zeroPadValue } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvmLog } from '../../src/chains/evm/index.ts';
import type { NetworkConfig } from '../../src/chains/networks.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { PayoutChains } from '../../src/modules/payout/payout.chain.ts';
import { payoutConsumer } from '../../src/modules/payout/payout.consumer.ts';
import { PAYOUT_EXECUTED_TOPIC } from '../../src/modules/payout/payout.order.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { foreignLog, header, routerStream } from './stream-harness.ts';

/**
 * The payouts stream runs nothing for a block with no logs while no executed payout waits for its
 * depth: an execution is recorded only from a log, or by the after-tick expiry pass finding a log the
 * stream missed. After logs, a reorganisation or such a pass, blocks complete payouts again.
 */

let t: TestApp;
let merchantId: string;
beforeAll(async () => {
  t = await startTestApp();
  merchantId = (await t.merchant()).id;
});
afterAll(() => t?.close());

const network = { id: 'eth', kind: 'evm', confirmations: [{ blocks: 1 }] } as unknown as NetworkConfig;
const router = `0x${'4'.repeat(40)}`;
const payer = `0x${'3'.repeat(40)}`;
const recipient = `0x${'2'.repeat(40)}`;
const token = `0x${'1'.repeat(40)}`;

/** The router's execution of the test payout (nonce 7), mined in `blockNumber`. */
const execution = (blockNumber: number) =>
  ({
    address: router,
    topics: [PAYOUT_EXECUTED_TOPIC, zeroPadValue(payer, 32), toBeHex(7n, 32), zeroPadValue(recipient, 32)],
    data: AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [token, 1_000_000n]),
    blockNumber,
    blockHash: header(blockNumber).hash,
    transactionHash: `0x${'e'.repeat(64)}`,
    index: 0,
  }) as unknown as EvmLog;

// The router shows the payout's nonce used; its log is found where the stream had not recorded it.
const chains = {
  nonceUsed: async () => true,
  logsSince: async () => [execution(113)],
} as unknown as PayoutChains;
const consumer = payoutConsumer({ chains, logger: createLogger('error') }, network, router);
const { block, afterTick } = routerStream(() => t, consumer);

const status = async () =>
  (await t.app.fork().execute<{ status: string }[]>(`select status from payouts where id = 'po_idle'`))[0]
    ?.status;

describe('the payouts stream on blocks with no logs', () => {
  it('completes nothing while no execution waits, and looks again after logs or a reorganisation', async () => {
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
    // A block transaction that did not commit (the cursor stayed below it) is not trusted.
    expect(await block(103)).toBeGreaterThan(0);
    await afterTick(102);
    expect(await block(103)).toBeGreaterThan(0);
    await afterTick(103);
    expect(await block(104)).toBe(0);
    await afterTick(104);
  });

  it('completes an execution that the expiry pass recorded, on the empty blocks after it', async () => {
    await t.app.fork().execute(
      `insert into payouts (id, merchant_id, network, token, token_address, amount, amount_raw, recipient,
         recipient_hex, payer, router, chain_id, nonce, deadline, status, created_at, updated_at)
       values ('po_idle', ?, 'eth', 'USDT', ?, '1', 1000000, ?, ?, ?, ?, 1, 7, 1000, 'submitted', now(), now())`,
      [merchantId, token, recipient, recipient, payer, router],
    );
    // The stream's logs make the expiry pass look again (the quiet horizon it kept covers payouts
    // created since, whose deadlines lie ahead; this row's is in the past).
    expect(await block(120, [foreignLog(120)])).toBeGreaterThan(0);
    // Past its deadline at the evidence block, the router shows its nonce used: the pass finds the log.
    await afterTick(120);
    expect(await status()).toBe('submitted');
    expect(await block(121)).toBeGreaterThan(0);
    expect(await status()).toBe('completed');
    await afterTick(121);
    expect(await block(122)).toBe(0);
  });
});
