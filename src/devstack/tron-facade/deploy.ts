import { toTronAddress } from '../../chains/tron/address.ts';
import { createContract } from '../../chains/tron/tx-create.ts';
import { transactionJson } from '../../chains/tron/tx-json.ts';
import type { ChainView } from './chain.ts';
import type { EvmRpc } from './evm-rpc.ts';
import {
  addressParam,
  BadRequest,
  hexParam,
  intParam,
  isVisible,
  type Params,
  stringParam,
} from './params.ts';
import { unsignedAtHead } from './trigger.ts';

/**
 * `deploycontract` builds an unsigned CreateSmartContract as java-tron does (the code is `bytecode`
 * followed by `parameter`, the owner is the origin, the TaPoS reference is the head block);
 * `getcontract` tells whether an address holds a contract. The facade deploys with an empty ABI only:
 * it has no encoder for ABI entries, and the gateway puts none on chain.
 */

export interface DeployHandlers {
  build(params: Params): Promise<object>;
  get(params: Params): Promise<object>;
}

function emptyAbi(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  const parsed = typeof value === 'string' ? safeJson(value) : value;
  if (Array.isArray(parsed)) return parsed.length === 0;
  const entrys = (parsed as { entrys?: unknown } | undefined)?.entrys;
  return (
    typeof parsed === 'object' &&
    parsed !== null &&
    (entrys === undefined || (Array.isArray(entrys) && entrys.length === 0))
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequest('abi is not JSON');
  }
}

export function createDeployHandlers(rpc: EvmRpc, chain: ChainView): DeployHandlers {
  return {
    async build(params) {
      const owner = addressParam(params, 'owner_address');
      const bytecode = (hexParam(params, 'bytecode') ?? '') + (hexParam(params, 'parameter') ?? '');
      if (!emptyAbi(params.abi)) throw new BadRequest('the facade deploys with an empty abi only');
      const raw = await unsignedAtHead(
        chain,
        params,
        createContract({
          ownerAddress: owner,
          originAddress: owner,
          abi: '',
          bytecode,
          name: stringParam(params, 'name') ?? '',
          callValue: BigInt(intParam(params, 'call_value', 0)),
          consumeUserResourcePercent: BigInt(intParam(params, 'consume_user_resource_percent', 0)),
          originEnergyLimit: BigInt(intParam(params, 'origin_energy_limit', 0)),
          callTokenValue: BigInt(intParam(params, 'call_token_value', 0)),
          tokenId: BigInt(intParam(params, 'token_id', 0)),
          otherFields: [],
        }),
      );
      return transactionJson(raw, isVisible(params));
    },

    async get(params) {
      const address = addressParam(params, 'value');
      const code = await rpc.call<string>('eth_getCode', [`0x${address.slice(2)}`, 'latest']);
      if (code === '0x') return {};
      // java-tron answers with the stored SmartContract, its `bytecode` replaced by the runtime code.
      return {
        contract_address: isVisible(params) ? toTronAddress(address) : address,
        bytecode: code.slice(2),
      };
    },
  };
}
