import { AbiCoder, getAddress, Wallet, zeroPadValue } from 'ethers';
import { expect, it } from 'vitest';
import type { EvmLog } from '../../src/chains/evm/index.ts';
import { PAYOUT_EXECUTED_TOPIC } from '../../src/modules/payout/payout.order.ts';
import { decodeExecution } from '../../src/modules/payout/payout.settle.ts';

/** `PayoutExecuted(merchant indexed, nonce indexed, recipient indexed, token, amount)` as a node gives it. */
function executed(payer: string, nonce: bigint, recipient: string, token: string, amount: bigint): EvmLog {
  return {
    address: '0x00000000000000000000000000000000000000aa',
    topics: [
      PAYOUT_EXECUTED_TOPIC,
      zeroPadValue(payer, 32),
      zeroPadValue(`0x${nonce.toString(16).padStart(2, '0')}`, 32),
      zeroPadValue(recipient, 32),
    ],
    data: AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [token, amount]),
    blockNumber: 7,
    blockHash: `0x${'b'.repeat(64)}`,
    transactionHash: `0x${'c'.repeat(64)}`,
    transactionIndex: 0,
    logIndex: 0,
    removed: false,
  };
}

it('decodes an execution with checksummed addresses and exact amounts, whatever the case of the topics’ hex', () => {
  const [payer, recipient, token] = [0, 1, 2].map(() => Wallet.createRandom().address);
  const log = executed(payer!, 42n, recipient!, token!, 10n ** 30n + 1n);
  const expected = {
    payer: getAddress(payer!),
    nonce: '42',
    recipient: getAddress(recipient!),
    token: getAddress(token!),
    amount: (10n ** 30n + 1n).toString(),
  };
  expect(decodeExecution(log)).toMatchObject(expected);
  // A node may give a topic's words in upper or mixed case: still the same addresses.
  const shouting = { ...log, topics: log.topics.map((t) => `0x${t.slice(2).toUpperCase()}`) };
  expect(decodeExecution(shouting)).toMatchObject(expected);
  const mixed = {
    ...log,
    topics: log.topics.map((t, i) =>
      i === 1 || i === 3 ? `0x${t.slice(2, 50).toUpperCase()}${t.slice(50)}` : t,
    ),
  };
  expect(decodeExecution(mixed)).toMatchObject(expected);
  // Not an execution: a topic missing.
  expect(decodeExecution({ ...log, topics: log.topics.slice(0, 3) })).toBeUndefined();
});
