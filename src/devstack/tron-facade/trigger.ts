import { id as keccakText } from 'ethers';
import { transactionJson } from '../../chains/tron/tx-json.ts';
import {
  type RawContract,
  type RawTransaction,
  type TriggerCall,
  triggerContract,
} from '../../chains/tron/tx-raw.ts';
import { blockIdOf, blockTimeMs, type ChainView, refBlockOf } from './chain.ts';
import { type EvmRpc, EvmRpcError, toQuantity } from './evm-rpc.ts';
import {
  addressParam,
  BadRequest,
  hexParam,
  intParam,
  isVisible,
  type Params,
  resultError,
  stringParam,
  utf8Hex,
} from './params.ts';
import { WEI_PER_SUN } from './resources.ts';

/**
 * `triggersmartcontract` builds an unsigned TriggerSmartContract transaction referencing the head
 * block (TaPoS), as java-tron does; `triggerconstantcontract` runs the call read-only (eth_call) and
 * reports its `energy_used` (the EVM gas it needs: see resources.ts).
 */

/** java-tron's default `trx.expiration.timeInMilliseconds`: a built transaction lives this long past the head. */
export const DEFAULT_EXPIRATION_MS = 60_000;

const SELECTOR_HEX_CHARS = 8;

/** The call a trigger request describes; `data` wins over `function_selector` + `parameter`. */
export function callFromParams(params: Params): TriggerCall {
  let data = hexParam(params, 'data');
  if (data === undefined) {
    const selector = stringParam(params, 'function_selector');
    if (!selector) throw new BadRequest('data or function_selector is required');
    const sighash = keccakText(selector.replace(/\s+/g, '')).slice(2, 2 + SELECTOR_HEX_CHARS);
    data = sighash + (hexParam(params, 'parameter') ?? '');
  }
  return {
    ownerAddress: addressParam(params, 'owner_address'),
    contractAddress: addressParam(params, 'contract_address'),
    data,
    callValue: BigInt(intParam(params, 'call_value', 0)),
    callTokenValue: BigInt(intParam(params, 'call_token_value', 0)),
    tokenId: BigInt(intParam(params, 'token_id', 0)),
  };
}

const evmAddressOf = (tronHex: string) => `0x${tronHex.slice(2)}`;

async function isContract(rpc: EvmRpc, tronHex: string, tag: string): Promise<boolean> {
  const code = await rpc.call<string>('eth_getCode', [evmAddressOf(tronHex), tag]);
  return code !== '0x';
}

const NO_CONTRACT = 'No contract or not a valid smart contract';

export interface TriggerHandlers {
  trigger(params: Params): Promise<object>;
  constant(params: Params, solidOnly: boolean): Promise<object>;
}

/**
 * An unsigned transaction of one contract as java-tron builds it: TaPoS from the head block, expiring
 * a minute past the head's time, `fee_limit` and `Permission_id` as asked.
 */
export async function unsignedAtHead(
  chain: ChainView,
  params: Params,
  contract: Omit<RawContract, 'permissionId'>,
): Promise<RawTransaction> {
  const head = await chain.latest();
  return {
    ...refBlockOf(blockIdOf(head)),
    expiration: blockTimeMs(head) + DEFAULT_EXPIRATION_MS,
    timestamp: Date.now(),
    feeLimit: intParam(params, 'fee_limit', 0),
    data: '',
    contracts: [{ ...contract, permissionId: intParam(params, 'Permission_id', 0) }],
  };
}

export function createTriggerHandlers(rpc: EvmRpc, chain: ChainView): TriggerHandlers {
  return {
    async trigger(params) {
      const call = callFromParams(params);
      if (!(await isContract(rpc, call.contractAddress, 'latest')))
        return resultError('CONTRACT_VALIDATE_ERROR', NO_CONTRACT);
      const raw = await unsignedAtHead(chain, params, triggerContract(call));
      return { result: { result: true }, transaction: transactionJson(raw, isVisible(params)) };
    },

    async constant(params, solidOnly) {
      // Without a contract address java-tron runs `data` as creation code: a deployment's estimate.
      const deploying = stringParam(params, 'contract_address') === undefined;
      const call = deploying
        ? { ...callFromParams({ ...params, contract_address: params.owner_address }), contractAddress: '' }
        : callFromParams(params);
      // A solidity node answers from the solidified state, so the call runs at that block.
      const tag = solidOnly ? toQuantity(await chain.solidified()) : 'latest';
      if (!deploying && !(await isContract(rpc, call.contractAddress, tag)))
        return resultError('CONTRACT_VALIDATE_ERROR', NO_CONTRACT);
      const tx = {
        from: evmAddressOf(call.ownerAddress),
        ...(deploying ? {} : { to: evmAddressOf(call.contractAddress) }),
        data: `0x${call.data}`,
        ...(call.callValue ? { value: toQuantity(call.callValue * WEI_PER_SUN) } : {}),
      };
      try {
        const out = await rpc.call<string>('eth_call', [tx, tag]);
        // java-tron reports the energy the read-only run used; here the EVM gas it needs stands in for
        // it (1 gas = 1 energy, the intrinsic cost included), the same unit broadcast caps by fee_limit.
        const gas = await rpc.call<string>('eth_estimateGas', [tx, tag]);
        return {
          result: { result: true },
          energy_used: Number(BigInt(gas)),
          constant_result: [out.slice(2)],
          transaction: { ret: [{}] },
        };
      } catch (error) {
        if (!(error instanceof EvmRpcError)) throw error;
        const revertData = typeof error.data === 'string' ? error.data.replace(/^0x/, '') : '';
        return {
          result: { code: 'CONTRACT_EXE_ERROR', message: utf8Hex('REVERT opcode executed') },
          constant_result: [revertData],
          transaction: { ret: [{ ret: 'FAILED' }] },
        };
      }
    },
  };
}
