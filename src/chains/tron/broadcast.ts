import { unavailable, validation } from '../../errors.ts';
import { bytesToHex, hexToBytes, isHex, normalizeHex } from './hex.ts';
import { decodeNodeMessage, malformed, nodeError, type TronHttp } from './http.ts';
import { normalizeTxSignature } from './signature.ts';
import { rawFromJson } from './tx-json.ts';
import { encodeRaw, encodeSignedTransaction, txIdOf } from './tx-raw.ts';

/**
 * Signed transactions in, broadcast results out. Whatever form the signature arrives in, what goes to
 * the node is the exact `raw_data` bytes plus one signature (`broadcasthex`), so the node executes
 * precisely what was checked and signed.
 */

/** A raw transaction with its single signature, both hex without `0x`. */
export interface SignedTronTransaction {
  rawTransaction: string;
  signature: string;
  txId: string;
}

/** Node refusals that say the node, not the transaction, is the problem: retry later. */
const NODE_SIDE_CODES = new Set([
  'SERVER_BUSY',
  'NO_CONNECTION',
  'NOT_ENOUGH_EFFECTIVE_CONNECTION',
  'BLOCK_UNSOLIDIFIED',
]);

/** `raw_transaction` exactly as built plus a 65-byte signature over its txID (section 4.15, D11). */
export function signedFromParts(rawTransaction: string, signature: string): SignedTronTransaction {
  if (!isHex(rawTransaction) || normalizeHex(rawTransaction).length === 0)
    throw validation('raw_transaction must be hex');
  const rawHex = normalizeHex(rawTransaction);
  return {
    rawTransaction: rawHex,
    signature: normalizeTxSignature(signature),
    txId: txIdOf(hexToBytes(rawHex)),
  };
}

/**
 * A whole signed transaction as the node's JSON (object or string). When both `raw_data` and
 * `raw_data_hex` are present they must agree, as must `txID`; exactly one signature is accepted.
 */
export function parseSignedTransaction(input: unknown): SignedTronTransaction {
  let json: unknown = input;
  if (typeof input === 'string') {
    try {
      json = JSON.parse(input);
    } catch {
      throw validation('signed transaction is not JSON');
    }
  }
  if (typeof json !== 'object' || json === null) throw validation('signed transaction must be an object');
  const tx = json as { raw_data?: unknown; raw_data_hex?: unknown; txID?: unknown; signature?: unknown };
  let rawHex: string | undefined;
  if (tx.raw_data !== undefined) {
    try {
      rawHex = bytesToHex(encodeRaw(rawFromJson(tx.raw_data)));
    } catch (error) {
      throw validation(`signed transaction: ${(error as Error).message}`);
    }
  }
  if (tx.raw_data_hex !== undefined) {
    if (typeof tx.raw_data_hex !== 'string' || !isHex(tx.raw_data_hex))
      throw validation('raw_data_hex must be hex');
    const given = normalizeHex(tx.raw_data_hex);
    if (rawHex !== undefined && rawHex !== given) throw validation('raw_data and raw_data_hex disagree');
    rawHex = given;
  }
  if (rawHex === undefined) throw validation('signed transaction has no raw_data');
  if (!Array.isArray(tx.signature) || tx.signature.length !== 1 || typeof tx.signature[0] !== 'string') {
    throw validation('signed transaction must carry exactly one signature');
  }
  const signed = signedFromParts(rawHex, tx.signature[0]);
  if (tx.txID !== undefined && (typeof tx.txID !== 'string' || normalizeHex(tx.txID) !== signed.txId)) {
    throw validation('txID does not match raw_data');
  }
  return signed;
}

interface BroadcastAnswer {
  result?: boolean;
  txid?: string;
  code?: string;
  message?: string;
}

/**
 * Broadcasts; `duplicate` when the node already had it (a retried broadcast is not an error). A
 * refused transaction is `validation` carrying the node's code; a busy node is `unavailable`.
 */
export async function broadcastSigned(
  http: TronHttp,
  signed: SignedTronTransaction,
): Promise<{ txId: string; duplicate: boolean }> {
  const transaction = bytesToHex(
    encodeSignedTransaction(hexToBytes(signed.rawTransaction), [hexToBytes(signed.signature)]),
  );
  const answer = await http.post<BroadcastAnswer>('/wallet/broadcasthex', { transaction });
  const error = nodeError(answer);
  if (error !== undefined) throw validation(`rejected by the network: ${error}`, { node_code: 'Error' });
  if (answer.result === true) return { txId: signed.txId, duplicate: false };
  if (answer.code === 'DUP_TRANSACTION_ERROR') return { txId: signed.txId, duplicate: true };
  if (typeof answer.code !== 'string') throw malformed(http.networkId, 'broadcasthex', answer);
  const reason = decodeNodeMessage(answer.message) || answer.code;
  if (NODE_SIDE_CODES.has(answer.code)) throw unavailable(`network ${http.networkId}: node busy: ${reason}`);
  throw validation(`rejected by the network: ${reason}`, { node_code: answer.code, tx_id: signed.txId });
}
