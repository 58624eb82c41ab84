import { validation } from '../../errors.ts';
import { decodeWord, ERC20 } from '../evm/abi.ts';
import { toTronHex } from './address.ts';
import { decodeNodeMessage, malformed, nodeError, type TronHttp } from './http.ts';

/**
 * TRC-20 reads through `triggerconstantcontract` (the node runs the call read-only against its head
 * state). Addresses may be given in any spelling (`T…`, `41…`, `0x…`).
 */

/** Caller of read-only calls when none matters: Tron's zero address (T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb). */
const ZERO_CALLER = `41${'0'.repeat(40)}`;

interface ConstantAnswer {
  result?: { result?: boolean; code?: string; message?: string };
  constant_result?: string[];
}

/**
 * Runs a read-only call and returns its return data (`0x` hex). A call the contract refuses (no
 * contract, revert) is `validation`; an endpoint that cannot answer is `unavailable`.
 */
export async function callConstant(
  http: TronHttp,
  call: { contract: string; data: string; caller?: string },
): Promise<string> {
  const body = {
    owner_address: toTronHex(call.caller ?? ZERO_CALLER),
    contract_address: toTronHex(call.contract),
    data: call.data.replace(/^0x/, ''),
    visible: false,
  };
  const answer = await http.post<ConstantAnswer>('/wallet/triggerconstantcontract', body);
  const error = nodeError(answer);
  if (error !== undefined) throw malformed(http.networkId, 'triggerconstantcontract', answer);
  if (answer.result?.code) {
    const reason = decodeNodeMessage(answer.result.message) || answer.result.code;
    throw validation(`call to ${call.contract} failed: ${reason}`, { node_code: answer.result.code });
  }
  const out = answer.constant_result?.[0];
  if (answer.result?.result !== true || typeof out !== 'string') {
    throw malformed(http.networkId, 'triggerconstantcontract', answer);
  }
  return `0x${out}`;
}

async function readWord(http: TronHttp, contract: string, data: string, what: string): Promise<bigint> {
  const word = decodeWord(await callConstant(http, { contract, data }));
  if (!word.ok) throw validation(`${what} of ${contract}: ${word.error}`);
  return word.value;
}

const evmArg = (address: string) => `0x${toTronHex(address).slice(2)}`;

/** `balanceOf(owner)` in base units. */
export async function trc20Balance(http: TronHttp, token: string, owner: string): Promise<bigint> {
  return readWord(http, token, ERC20.encodeFunctionData('balanceOf', [evmArg(owner)]), 'balanceOf');
}

/** `allowance(owner, spender)` in base units. */
export async function trc20Allowance(
  http: TronHttp,
  token: string,
  owner: string,
  spender: string,
): Promise<bigint> {
  const data = ERC20.encodeFunctionData('allowance', [evmArg(owner), evmArg(spender)]);
  return readWord(http, token, data, 'allowance');
}

/** `decimals()`; values a uint8 cannot hold are refused. */
export async function trc20Decimals(http: TronHttp, token: string): Promise<number> {
  const value = await readWord(http, token, ERC20.encodeFunctionData('decimals', []), 'decimals');
  if (value > 255n) throw validation(`decimals of ${token} is out of range: ${value}`);
  return Number(value);
}
