import { validation } from '../../errors.ts';
import { encodeApprove } from '../evm/abi.ts';
import { toEvmAddress, toTronHex } from './address.ts';
import { bytesToHex, hexToBytes, isHex, normalizeHex } from './hex.ts';
import { decodeNodeMessage, malformed, nodeError, type TronHttp } from './http.ts';
import { decodeRaw, encodeRaw, type RawTransaction, soleTrigger, txIdOf } from './tx-raw.ts';

/**
 * Builds unsigned TriggerSmartContract transactions through the node (which supplies the TaPoS
 * reference), then checks that what came back is exactly what was asked for before anyone is asked
 * to sign it, and stretches its validity so a person has time to sign.
 */

/** Default cap on what the call may burn: 100 TRX, ample for a TRC-20 approve (~15 TRX at today's price). */
export const DEFAULT_FEE_LIMIT_SUN = 100_000_000;
/** Default validity of a built transaction; nodes set a minute, too short for a merchant to sign by hand. */
export const DEFAULT_VALIDITY_MS = 60 * 60_000;
/** Tron refuses expirations more than 24 h past its head; stay an hour clear of that. */
export const MAX_VALIDITY_MS = 23 * 60 * 60_000;

/** Section 2.7's Tron `transaction`: sign the 32-byte `tx_id`; times in ms, fee in sun. */
export interface TronBuiltTransaction {
  /** `raw_data_hex`: the protobuf `Transaction.raw`, hex without `0x`. */
  raw_transaction: string;
  /** SHA-256 of `raw_transaction`, hex without `0x`. */
  tx_id: string;
  fee_limit: number;
  /** Unix ms after which the network refuses the transaction. */
  expiration: number;
}

export interface TriggerRequest {
  /** Signer, any spelling. */
  owner: string;
  /** Contract called, any spelling. */
  contract: string;
  /** Calldata, hex. */
  data: string;
  feeLimit?: number;
  validityMs?: number;
}

interface TriggerAnswer {
  result?: { result?: boolean; code?: string; message?: string };
  transaction?: { txID?: string; raw_data_hex?: string };
}

/** Builds, verifies and re-dates a TriggerSmartContract transaction. */
export async function buildTrigger(http: TronHttp, request: TriggerRequest): Promise<TronBuiltTransaction> {
  const feeLimit = request.feeLimit ?? DEFAULT_FEE_LIMIT_SUN;
  const validityMs = request.validityMs ?? DEFAULT_VALIDITY_MS;
  if (!Number.isSafeInteger(feeLimit) || feeLimit <= 0)
    throw validation('fee limit must be a positive integer');
  if (validityMs <= 0 || validityMs > MAX_VALIDITY_MS) throw validation('validity out of range');
  if (!isHex(request.data)) throw validation('calldata must be hex');
  const owner = toTronHex(request.owner);
  const contract = toTronHex(request.contract);
  const data = normalizeHex(request.data);

  const answer = await http.post<TriggerAnswer>('/wallet/triggersmartcontract', {
    owner_address: owner,
    contract_address: contract,
    data,
    fee_limit: feeLimit,
    call_value: 0,
    visible: false,
  });
  if (nodeError(answer) !== undefined) throw malformed(http.networkId, 'triggersmartcontract', answer);
  if (answer.result?.code) {
    const reason = decodeNodeMessage(answer.result.message) || answer.result.code;
    throw validation(`the network refused to build the call: ${reason}`, { node_code: answer.result.code });
  }
  const rawHex = answer.transaction?.raw_data_hex;
  if (answer.result?.result !== true || typeof rawHex !== 'string' || !isHex(rawHex)) {
    throw malformed(http.networkId, 'triggersmartcontract', answer);
  }

  let raw: RawTransaction;
  try {
    raw = decodeRaw(hexToBytes(rawHex));
  } catch {
    throw malformed(http.networkId, 'triggersmartcontract', answer);
  }
  // Never hand out a transaction the node altered: it would be signed in good faith.
  const call = soleTrigger(raw);
  const faithful =
    call !== undefined &&
    call.ownerAddress === owner &&
    call.contractAddress === contract &&
    call.data === data &&
    call.callValue === 0n &&
    call.callTokenValue === 0n &&
    call.tokenId === 0n &&
    raw.contracts[0]!.permissionId === 0 &&
    raw.feeLimit === feeLimit &&
    raw.data === '' &&
    answer.transaction?.txID === txIdOf(hexToBytes(rawHex));
  if (!faithful)
    throw malformed(http.networkId, 'triggersmartcontract (transaction differs from the request)', answer);

  const dated: RawTransaction = { ...raw, expiration: Math.max(raw.expiration, Date.now() + validityMs) };
  const bytes = encodeRaw(dated);
  return {
    raw_transaction: bytesToHex(bytes),
    tx_id: txIdOf(bytes),
    fee_limit: feeLimit,
    expiration: dated.expiration,
  };
}

/** `approve(spender, amount)` on a TRC-20 from `owner`; amount in base units. */
export async function buildApprove(
  http: TronHttp,
  params: {
    token: string;
    owner: string;
    spender: string;
    amount: bigint;
    feeLimit?: number;
    validityMs?: number;
  },
): Promise<TronBuiltTransaction> {
  const data = encodeApprove(toEvmAddress(params.spender), params.amount);
  return buildTrigger(http, { owner: params.owner, contract: params.token, data, ...pick(params) });
}

const pick = (p: { feeLimit?: number; validityMs?: number }) => ({
  ...(p.feeLimit === undefined ? {} : { feeLimit: p.feeLimit }),
  ...(p.validityMs === undefined ? {} : { validityMs: p.validityMs }),
});
