import { AbiCoder, Interface } from 'ethers';
import { validation } from '../../errors.ts';
import { decodeAggregate3Result, encodeAggregate3Calls } from './multicall-codec.ts';
import { address, type Hex } from './util.ts';

/**
 * The ERC-20 and Multicall3 fragments the adapter speaks, as human-readable ABI so this file does not
 * depend on compiled artifacts. Return values are decoded by hand (a single word) because USDT-like
 * tokens return nothing from `approve`/`transfer` and some tokens return `uint256` from `decimals`.
 */

export const ERC20 = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function decimals() view returns (uint8)',
  'function approve(address spender, uint256 amount)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
]);

export const MULTICALL3 = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);

const coder = AbiCoder.defaultAbiCoder();
const MAX_UINT256 = (1n << 256n) - 1n;

/** Calldata of `approve(spender, amount)`; amount in base units. */
export function encodeApprove(spender: string, amount: bigint): Hex {
  if (amount < 0n || amount > MAX_UINT256) throw validation('approve amount out of uint256 range');
  return ERC20.encodeFunctionData('approve', [address(spender, 'spender'), amount]) as Hex;
}

/** `approve(spender, amount)` decoded from calldata, or null when the data is anything else. */
export function decodeApprove(data: string): { spender: string; amount: bigint } | null {
  const selector = ERC20.getFunction('approve')!.selector;
  // Exactly selector + two words: trailing bytes would make it a different call to audit.
  if (data.length !== 2 + 8 + 128 || data.slice(0, 10).toLowerCase() !== selector) return null;
  try {
    const [spender, amount] = coder.decode(['address', 'uint256'], `0x${data.slice(10)}`);
    return { spender: address(spender as string, 'spender'), amount: amount as bigint };
  } catch {
    return null;
  }
}

/** A single uint256 return word, or a reason it is not one (EOA, non-ERC-20, revert). */
export function decodeWord(data: string): { ok: true; value: bigint } | { ok: false; error: string } {
  if (data === '0x' || data === '')
    return { ok: false, error: 'call returned no data (no contract at this address?)' };
  if (!/^0x[0-9a-fA-F]*$/.test(data) || data.length < 66) {
    return { ok: false, error: 'call returned malformed data (not an ERC-20 contract?)' };
  }
  return { ok: true, value: BigInt(data.slice(0, 66)) };
}

export interface Call3 {
  target: string;
  callData: string;
}

/**
 * Calldata of `aggregate3` with every call allowed to fail, so one bad token never sinks the rest.
 * Laid out by hand (multicall-codec.ts): it is on every balance read.
 */
export function encodeAggregate3(calls: readonly Call3[]): Hex {
  return encodeAggregate3Calls(calls) as Hex;
}

/** Decodes `aggregate3`'s answer into per-call success and return data (multicall-codec.ts). */
export function decodeAggregate3(data: string): { success: boolean; returnData: string }[] {
  return decodeAggregate3Result(data);
}
