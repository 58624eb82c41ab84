import { Transaction } from 'ethers';
import { validation } from '../../errors.ts';
import { decodeApprove } from './abi.ts';

/**
 * Decodes a signed raw transaction so a broadcast can be checked before it reaches the network: who
 * signed it (recovered, not claimed), where it goes, and whether it is exactly `approve(spender, amount)`.
 */

/** Raw transactions above this are refused before parsing (an approve is ~110 bytes). */
export const MAX_RAW_TX_BYTES = 128 * 1024;

export interface DecodedTransaction {
  hash: string;
  /** Recovered signer, checksummed. */
  from: string;
  /** Checksummed recipient; null for a contract creation. */
  to: string | null;
  data: string;
  value: bigint;
  nonce: number;
  /** 0 for a legacy transaction signed without EIP-155 replay protection. */
  chainId: number;
  /** 0 legacy, 1 EIP-2930, 2 EIP-1559, ... */
  type: number;
  gasLimit: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  /** Set when the calldata is exactly `approve(spender, amount)`. */
  approve: { spender: string; amount: bigint } | null;
}

/** @throws AppError('validation') when `raw` is not a well-formed signed transaction. */
export function decodeSignedTransaction(raw: string): DecodedTransaction {
  if (typeof raw !== 'string' || !/^0x([0-9a-fA-F]{2})+$/.test(raw)) {
    throw validation('signed transaction must be 0x-prefixed hex');
  }
  if ((raw.length - 2) / 2 > MAX_RAW_TX_BYTES) throw validation('signed transaction is too large');
  let tx: Transaction;
  try {
    tx = Transaction.from(raw);
  } catch {
    throw validation('not a valid signed transaction');
  }
  if (!tx.isSigned() || !tx.from || !tx.hash) throw validation('transaction is not signed');
  if (tx.type === null) throw validation('transaction has no type');
  return {
    hash: tx.hash,
    from: tx.from,
    to: tx.to,
    data: tx.data,
    value: tx.value,
    nonce: tx.nonce,
    chainId: Number(tx.chainId),
    type: tx.type,
    gasLimit: tx.gasLimit,
    ...(tx.gasPrice === null ? {} : { gasPrice: tx.gasPrice }),
    ...(tx.maxFeePerGas === null ? {} : { maxFeePerGas: tx.maxFeePerGas }),
    ...(tx.maxPriorityFeePerGas === null ? {} : { maxPriorityFeePerGas: tx.maxPriorityFeePerGas }),
    approve: decodeApprove(tx.data),
  };
}
