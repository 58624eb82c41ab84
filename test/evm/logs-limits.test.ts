import { describe, expect, it } from 'vitest';
import { isTooLarge, rangeHint } from '../../src/chains/evm/logs-limits.ts';
import { RpcError } from '../../src/chains/evm/rpc/errors.ts';

/** Refusal texts as real providers word them. */
describe('eth_getLogs limits', () => {
  it('reads the suggested range or the stated limit from provider messages', () => {
    const from = 0x4e3b1c;
    expect(
      rangeHint(
        'query returned more than 10000 results. Try with this block range [0x4E3B1C, 0x4E3C27].',
        from,
      ),
    ).toEqual({ size: 0x4e3c27 - from + 1 });
    const alchemy =
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x4e3b1c, 0x4e3b2f]';
    expect(rangeHint(alchemy, from)).toEqual({ size: 0x14 });
    expect(rangeHint(alchemy, from + 1)).toEqual({});
    expect(rangeHint('exceed maximum block range: 5000', from)).toEqual({ size: 5000, cap: 5000 });
    expect(rangeHint('eth_getLogs is limited to a 10,000 range', from)).toEqual({
      size: 10_000,
      cap: 10_000,
    });
    expect(rangeHint('block range is too wide (max 1000)', from)).toEqual({ size: 1000, cap: 1000 });
    expect(rangeHint('block range is too wide', from)).toEqual({});
  });

  it('tells range refusals from other errors', () => {
    for (const message of [
      'query returned more than 10000 results',
      'limit exceeded',
      'block range is too wide',
      'query timeout exceeded',
      'exceed maximum block range: 5000',
    ]) {
      expect(isTooLarge(new RpcError(-32005, message)), message).toBe(true);
    }
    for (const message of [
      'invalid argument 0: hex string without 0x prefix',
      'unknown block',
      'execution reverted',
    ]) {
      expect(isTooLarge(new RpcError(-32602, message)), message).toBe(false);
    }
  });
});
