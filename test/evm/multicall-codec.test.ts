import { AbiCoder, Interface } from 'ethers';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { decodeAggregate3Result, encodeAggregate3Calls } from '../../src/chains/evm/multicall-codec.ts';

/** ethers' general coder, which the hand-laid codec stands in for on the read path. */
const MULTICALL3 = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const coder = AbiCoder.defaultAbiCoder();
const RESULT = ['(bool success, bytes returnData)[]'];

/** ethers' decoding read through, as the old read path did (ethers defers some errors to access). */
const ethersDecode = (data: string) =>
  (coder.decode(RESULT, data)[0] as unknown[][]).map((r) => ({ success: r[0], returnData: r[1] }));

const hex = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;
const addressArb = fc.uint8Array({ minLength: 20, maxLength: 20 }).map(hex);
const bytesArb = fc.uint8Array({ maxLength: 200 }).map(hex);

it('encodes aggregate3 calldata exactly as ethers does', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ target: addressArb, callData: bytesArb }), { maxLength: 12 }),
      (calls) => {
        const expected = MULTICALL3.encodeFunctionData('aggregate3', [
          calls.map((c) => [c.target, true, c.callData]),
        ]);
        expect(encodeAggregate3Calls(calls)).toBe(expected);
      },
    ),
  );
});

it('decodes aggregate3 results exactly as ethers does', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ success: fc.boolean(), returnData: bytesArb }), { maxLength: 12 }),
      (results) => {
        const data = coder.encode(RESULT, [results.map((r) => [r.success, r.returnData])]);
        expect(decodeAggregate3Result(data)).toEqual(results);
      },
    ),
  );
});

it('refuses what ethers refuses: cut short, offsets or lengths past the end, not hex', () => {
  const good = coder.encode(RESULT, [
    [
      [true, `0x${'ab'.repeat(32)}`],
      [false, '0x'],
    ],
  ]);
  const refusals = [
    good.slice(0, good.length - 64),
    good.slice(0, 2 + 64 * 3),
    `0x${'0'.repeat(63)}1`,
    `0x${'ff'.repeat(32)}${good.slice(66)}`,
    `${good.slice(0, 66)}${'f'.repeat(64)}${good.slice(130)}`,
    `${good}0`,
    'nothex',
  ];
  for (const data of refusals) {
    expect(() => ethersDecode(data), data).toThrow();
    expect(() => decodeAggregate3Result(data), data).toThrow();
  }
  // Any nonzero word is `true`, as in ethers.
  const two = `${good.slice(0, 2 + 64 * 4)}${'0'.repeat(63)}2${good.slice(2 + 64 * 5)}`;
  expect(decodeAggregate3Result(two)).toEqual(ethersDecode(two));
});

it('refuses a bad target or call data when encoding', () => {
  expect(() => encodeAggregate3Calls([{ target: '0x12', callData: '0x' }])).toThrow(/target/);
  expect(() => encodeAggregate3Calls([{ target: `0x${'1'.repeat(40)}`, callData: '0x1' }])).toThrow(
    /call data/,
  );
});
