import { type Call3, decodeAggregate3, decodeWord, ERC20 } from './abi.ts';
import { isRevert } from './rpc/errors.ts';
import type { RpcCall, RpcOutcome } from './rpc/transport.ts';
import { address, quantity } from './util.ts';

/**
 * The reads reads.ts batches: how each becomes calldata, and how each answer (an aggregate3 entry or
 * a plain eth_call result) becomes a per-item value or error. Both paths end in the same texts, so a
 * caller cannot tell (and need not care) which one was used.
 */

export type ReadCall =
  | { kind: 'balanceOf'; token: string; owner: string }
  | { kind: 'allowance'; token: string; owner: string; spender: string }
  | { kind: 'decimals'; token: string }
  | { kind: 'nativeBalance'; owner: string };

/** One read's value in base units (decimals as a small bigint), or why it failed. */
export type ReadResult = { ok: true; value: bigint } | { ok: false; error: string };

export function prepare(call: ReadCall): { call?: Call3; owner?: string } {
  switch (call.kind) {
    case 'nativeBalance':
      return { owner: address(call.owner, 'owner') };
    case 'balanceOf':
      return { call: erc20(call.token, 'balanceOf', [address(call.owner, 'owner')]) };
    case 'allowance':
      return {
        call: erc20(call.token, 'allowance', [
          address(call.owner, 'owner'),
          address(call.spender, 'spender'),
        ]),
      };
    case 'decimals':
      return { call: erc20(call.token, 'decimals', []) };
  }
}

/** The ERC-20 view functions' selectors, checked against the ABI once at load. */
const SELECTORS = { balanceOf: '70a08231', allowance: 'dd62ed3e', decimals: '313ce567' } as const;
for (const [fn, selector] of Object.entries(SELECTORS))
  if (ERC20.getFunction(fn)!.selector !== `0x${selector}`) throw new Error(`selector of ${fn} mismatch`);

/** Calldata of a view function taking only addresses (already checksummed): one word each. */
const erc20 = (token: string, fn: keyof typeof SELECTORS, args: string[]): Call3 => ({
  target: address(token, 'token'),
  callData: `0x${SELECTORS[fn]}${args.map((a) => a.slice(2).toLowerCase().padStart(64, '0')).join('')}`,
});

export const ethCall = (to: string, data: string, tag: string): RpcCall => ({
  method: 'eth_call',
  params: [{ to, data }, tag],
});

export function decodeGroup(
  outcome: RpcOutcome,
  size: number,
): { success: boolean; returnData: string }[] | null {
  if (!outcome.ok || typeof outcome.result !== 'string') return null;
  try {
    const decoded = decodeAggregate3(outcome.result);
    return decoded.length === size ? decoded : null;
  } catch {
    return null;
  }
}

export function single(call: ReadCall, outcome: RpcOutcome): ReadResult {
  if (!outcome.ok) {
    return {
      ok: false,
      error: isRevert(outcome.error) ? 'call reverted' : `call failed: ${outcome.error.message}`,
    };
  }
  if (call.kind === 'nativeBalance') {
    try {
      return { ok: true, value: quantity(outcome.result, 'eth_getBalance') };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  }
  return finish(call, decodeWord(typeof outcome.result === 'string' ? outcome.result : ''));
}

export function finish(call: ReadCall, word: ReadResult): ReadResult {
  if (word.ok && call.kind === 'decimals' && word.value > 255n)
    return { ok: false, error: 'decimals out of range' };
  return word;
}
