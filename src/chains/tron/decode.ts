import { validation } from '../../errors.ts';
import { decodeApprove } from '../evm/abi.ts';
import { toEvmAddress } from './address.ts';
import { hexToBytes, isHex } from './hex.ts';
import { decodeRaw, type RawTransaction, soleTrigger, txIdOf } from './tx-raw.ts';

/**
 * Reads a `raw_transaction` (raw_data_hex) back into what it does, so a caller can check that a
 * transaction handed back for broadcast is exactly the one that was built.
 */

export interface DecodedTronTransaction {
  txId: string;
  /** Signer, `0x` form. */
  owner: string;
  /** Contract called, `0x` form. */
  contract: string;
  /** Calldata, `0x` hex. */
  data: string;
  /** TRX sent along, in sun. */
  callValue: bigint;
  feeLimit: number;
  /** Unix ms. */
  expiration: number;
  timestamp: number;
  /** The call as `approve(spender, amount)`, when it is exactly that. */
  approve: { spender: string; amount: bigint } | null;
}

/** Decodes one TriggerSmartContract transaction; anything else is a `validation` error. */
export function decodeTronTransaction(rawTransaction: string): DecodedTronTransaction {
  if (!isHex(rawTransaction) || rawTransaction.replace(/^0x/, '').length === 0) {
    throw validation('raw_transaction must be hex');
  }
  const bytes = hexToBytes(rawTransaction);
  let raw: RawTransaction;
  try {
    raw = decodeRaw(bytes);
  } catch (error) {
    throw validation(`raw_transaction is not a Tron transaction: ${(error as Error).message}`);
  }
  const call = soleTrigger(raw);
  // TRC-10 values and non-owner permissions are nothing this service builds.
  const plain = call?.callTokenValue === 0n && call.tokenId === 0n && raw.contracts[0]!.permissionId === 0;
  if (!call || !plain) throw validation('raw_transaction is not a single plain TriggerSmartContract');
  const data = `0x${call.data}`;
  return {
    txId: txIdOf(bytes),
    owner: toEvmAddress(call.ownerAddress),
    contract: toEvmAddress(call.contractAddress),
    data,
    callValue: call.callValue,
    feeLimit: raw.feeLimit,
    expiration: raw.expiration,
    timestamp: raw.timestamp,
    approve: decodeApprove(data),
  };
}
