import { validation } from '../../errors.ts';
import type { TxState } from '../types.ts';
import { type DecodedTronTransaction, decodeTronTransaction } from './decode.ts';
import { isHex, normalizeHex } from './hex.ts';
import { malformed, nodeError, type TronHttp } from './http.ts';

/**
 * Where a transaction stands (section 3.6). Tron needs no confirmation count for a result to stand
 * once a block is solidified; `solidified` says whether it is. `confirmed`/`failed` come from the
 * head chain, so an approval is usable (and its allowance readable) as soon as it is mined.
 */

export interface TronTxState extends TxState {
  /** Whether the including block is at or below the solidified head (final). */
  solidified: boolean;
  /** The node's receipt result: SUCCESS, REVERT, OUT_OF_ENERGY, … */
  result?: string;
  /** Sun burned for energy and bandwidth. */
  fee?: number;
}

interface InfoAnswer {
  id?: string;
  blockNumber?: number;
  fee?: number;
  result?: string;
  receipt?: { result?: string };
}

interface BlockAnswer {
  block_header?: { raw_data?: { number?: number } };
}

const TX_ID = /^(0x)?[0-9a-fA-F]{64}$/;

export function checkTxId(txId: string): string {
  if (!TX_ID.test(txId)) throw validation('tx id must be 32 bytes of hex');
  return normalizeHex(txId);
}

/** Number of the newest block the node (`/wallet`) or its solidity view (`/walletsolidity`) has. */
export async function blockNumber(http: TronHttp, solidified: boolean): Promise<number> {
  const path = solidified ? '/walletsolidity/getnowblock' : '/wallet/getnowblock';
  const answer = await http.post<BlockAnswer>(path, {});
  const n = answer.block_header?.raw_data?.number;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw malformed(http.networkId, path, answer);
  return n;
}

export async function getTxState(http: TronHttp, txId: string): Promise<TronTxState> {
  const value = checkTxId(txId);
  const info = await http.post<InfoAnswer>('/wallet/gettransactioninfobyid', { value });
  if (nodeError(info) !== undefined) throw malformed(http.networkId, 'gettransactioninfobyid', info);
  if (typeof info.blockNumber !== 'number') {
    // Not in a block yet: pending while the node holds it in its pending pool, otherwise unknown.
    const tx = await http.post<{ txID?: string }>('/wallet/gettransactionfrompending', { value });
    return { status: tx.txID ? 'pending' : 'not_found', confirmations: 0, solidified: false };
  }
  const [head, solid] = await Promise.all([blockNumber(http, false), blockNumber(http, true)]);
  const result = info.receipt?.result ?? (info.result === 'FAILED' ? 'FAILED' : 'SUCCESS');
  const failed = info.result === 'FAILED' || result !== 'SUCCESS';
  return {
    status: failed ? 'failed' : 'confirmed',
    blockNumber: info.blockNumber,
    confirmations: Math.max(0, head - info.blockNumber + 1),
    solidified: info.blockNumber <= solid,
    result,
    ...(typeof info.fee === 'number' ? { fee: info.fee } : {}),
  };
}

/**
 * The transaction as the node has it (in a block or still pending), decoded; null when the node does
 * not know it or it is not a single TriggerSmartContract (nothing this service would have built).
 */
export async function getTronTransaction(
  http: TronHttp,
  txId: string,
): Promise<DecodedTronTransaction | null> {
  const value = checkTxId(txId);
  type TxAnswer = { txID?: string; raw_data_hex?: string };
  let tx = await http.post<TxAnswer>('/wallet/gettransactionbyid', { value });
  if (!tx.txID) tx = await http.post<TxAnswer>('/wallet/gettransactionfrompending', { value });
  if (!tx.txID || typeof tx.raw_data_hex !== 'string' || !isHex(tx.raw_data_hex)) return null;
  try {
    const decoded = decodeTronTransaction(tx.raw_data_hex);
    // The id is the hash of the bytes: a node answering with other bytes is not answering this query.
    return decoded.txId === value ? decoded : null;
  } catch {
    return null;
  }
}
