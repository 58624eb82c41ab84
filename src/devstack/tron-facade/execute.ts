import type { TriggerCall } from '../../chains/tron/tx-raw.ts';
import { type EvmBlock, type EvmRpc, EvmRpcError, toQuantity } from './evm-rpc.ts';
import { ENERGY_PRICE_SUN, MAX_FEE_LIMIT_SUN, WEI_PER_SUN } from './resources.ts';

/**
 * Runs a verified TriggerSmartContract on anvil as its owner. The facade does not hold the owner's
 * key: it already checked the Tron signature, and the same secp256k1 key controls the 0x form of the
 * address, so it impersonates that account (`anvil_impersonateAccount`) and sends the call. Gas is
 * bought at price zero (resources are not modelled), capped at fee_limit / energy price.
 */

const evm = (tronHex: string) => `0x${tronHex.slice(2)}`;

/** Returns why the call could not be sent, or undefined once it is on its way (`onSent` has run). */
export async function executeAsOwner(
  rpc: EvmRpc,
  call: TriggerCall,
  feeLimit: number,
  onSent: (evmHash: string, gas: number) => void,
): Promise<string | undefined> {
  if (feeLimit > MAX_FEE_LIMIT_SUN) return `feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT_SUN}`;
  if (call.callTokenValue !== 0n || call.tokenId !== 0n)
    return 'TRC-10 call values are not modelled by the facade';
  const code = await rpc.call<string>('eth_getCode', [evm(call.contractAddress), 'latest']);
  if (code === '0x') return 'No contract or not a valid smart contract';
  const latest = await rpc.call<EvmBlock>('eth_getBlockByNumber', ['latest', false]);
  const gas = Math.min(Math.floor(feeLimit / ENERGY_PRICE_SUN), Number(latest.gasLimit));
  const from = evm(call.ownerAddress);
  try {
    // A zero base fee lets the zero-price call in; under light load it stays zero block after block.
    await rpc.call('anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await rpc.call('anvil_impersonateAccount', [from]);
    const hash = await rpc.call<string>('eth_sendTransaction', [
      {
        from,
        to: evm(call.contractAddress),
        data: `0x${call.data}`,
        value: toQuantity(call.callValue * WEI_PER_SUN),
        gas: toQuantity(gas),
        gasPrice: '0x0',
      },
    ]);
    onSent(hash, gas);
    return undefined;
  } catch (error) {
    if (error instanceof EvmRpcError) return error.message;
    throw error;
  } finally {
    await rpc.call('anvil_stopImpersonatingAccount', [from]).catch(() => undefined);
  }
}
