import type { CreateCall } from '../../chains/tron/tx-create.ts';
import type { TriggerCall } from '../../chains/tron/tx-raw.ts';
import { type EvmBlock, type EvmRpc, EvmRpcError, toQuantity } from './evm-rpc.ts';
import { ENERGY_PRICE_SUN, MAX_FEE_LIMIT_SUN, WEI_PER_SUN } from './resources.ts';

/**
 * Runs a verified TriggerSmartContract or CreateSmartContract on anvil as its owner. The facade does
 * not hold the owner's key: it already checked the Tron signature, and the same secp256k1 key controls
 * the 0x form of the address, so it impersonates that account (`anvil_impersonateAccount`) and sends
 * the transaction. Gas is bought at price zero (resources are not modelled), capped at fee_limit /
 * energy price.
 */

const evm = (tronHex: string) => `0x${tronHex.slice(2)}`;

type OnSent = (evmHash: string, gas: number) => void;

/** Returns why the call could not be sent, or undefined once it is on its way (`onSent` has run). */
export async function executeAsOwner(
  rpc: EvmRpc,
  call: TriggerCall,
  feeLimit: number,
  onSent: OnSent,
): Promise<string | undefined> {
  if (call.callTokenValue !== 0n || call.tokenId !== 0n)
    return 'TRC-10 call values are not modelled by the facade';
  const code = await rpc.call<string>('eth_getCode', [evm(call.contractAddress), 'latest']);
  if (code === '0x') return 'No contract or not a valid smart contract';
  return sendAsOwner(
    rpc,
    { from: evm(call.ownerAddress), to: evm(call.contractAddress), data: call.data, value: call.callValue },
    feeLimit,
    onSent,
  );
}

/**
 * A deployment, with java-tron's checks of CreateSmartContract. The contract's address is the one
 * anvil gives it (the EVM's CREATE rule), not the TVM's: see docs/tron-facade.md.
 */
export async function executeCreateAsOwner(
  rpc: EvmRpc,
  create: CreateCall,
  feeLimit: number,
  onSent: OnSent,
): Promise<string | undefined> {
  if (create.callTokenValue !== 0n || create.tokenId !== 0n)
    return 'TRC-10 call values are not modelled by the facade';
  if (create.originAddress !== create.ownerAddress) return 'OwnerAddress is not equals OriginAddress';
  if (create.consumeUserResourcePercent < 0n || create.consumeUserResourcePercent > 100n)
    return 'percent must be >= 0 and <= 100';
  if (create.originEnergyLimit <= 0n) return 'The originEnergyLimit must be > 0';
  if (create.otherFields.length > 0) return 'contract_address, code_hash and trx_hash must not be set';
  if (create.bytecode === '') return 'no bytecode to deploy';
  return sendAsOwner(
    rpc,
    { from: evm(create.ownerAddress), data: create.bytecode, value: create.callValue },
    feeLimit,
    onSent,
  );
}

async function sendAsOwner(
  rpc: EvmRpc,
  tx: { from: string; to?: string; data: string; value: bigint },
  feeLimit: number,
  onSent: OnSent,
): Promise<string | undefined> {
  if (feeLimit > MAX_FEE_LIMIT_SUN) return `feeLimit must be >= 0 and <= ${MAX_FEE_LIMIT_SUN}`;
  const latest = await rpc.call<EvmBlock>('eth_getBlockByNumber', ['latest', false]);
  const gas = Math.min(Math.floor(feeLimit / ENERGY_PRICE_SUN), Number(latest.gasLimit));
  try {
    // A zero base fee lets the zero-price call in; under light load it stays zero block after block.
    await rpc.call('anvil_setNextBlockBaseFeePerGas', ['0x0']);
    await rpc.call('anvil_impersonateAccount', [tx.from]);
    const hash = await rpc.call<string>('eth_sendTransaction', [
      {
        from: tx.from,
        ...(tx.to ? { to: tx.to } : {}),
        data: `0x${tx.data}`,
        value: toQuantity(tx.value * WEI_PER_SUN),
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
    await rpc.call('anvil_stopImpersonatingAccount', [tx.from]).catch(() => undefined);
  }
}
