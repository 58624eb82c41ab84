import { z } from 'zod';
import { toTronAddress, toTronHex } from './address.ts';
import { bytesToHex, isHex, normalizeHex } from './hex.ts';
import {
  decodeTrigger,
  encodeRaw,
  type RawTransaction,
  TRIGGER_SMART_CONTRACT,
  TRIGGER_TYPE_URL,
  triggerContract,
  txIdOf,
} from './tx-raw.ts';

/**
 * The JSON shape java-tron's HTTP API gives a transaction (`visible` false: addresses as `41…` hex;
 * true: base58). Only TriggerSmartContract is spelled out; it is the one contract type this project
 * builds, signs or broadcasts.
 */

export interface TriggerValueJson {
  owner_address: string;
  contract_address: string;
  data?: string;
  call_value?: number;
  call_token_value?: number;
  token_id?: number;
}

export interface RawDataJson {
  contract: {
    parameter: { value: TriggerValueJson; type_url: string };
    type: string;
    Permission_id?: number;
  }[];
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  fee_limit?: number;
  timestamp: number;
  data?: string;
}

export interface TransactionJson {
  visible: boolean;
  txID: string;
  raw_data: RawDataJson;
  raw_data_hex: string;
  signature?: string[];
  ret?: { contractRet: string }[];
}

const int64 = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const hex = z.string().refine(isHex, 'must be hex');

const rawDataSchema = z.object({
  contract: z
    .array(
      z.object({
        type: z.literal('TriggerSmartContract'),
        Permission_id: int64.optional(),
        parameter: z.object({
          type_url: z.literal(TRIGGER_TYPE_URL).optional(),
          value: z.object({
            owner_address: z.string(),
            contract_address: z.string(),
            data: hex.optional(),
            call_value: int64.optional(),
            call_token_value: int64.optional(),
            token_id: int64.optional(),
          }),
        }),
      }),
    )
    .length(1),
  ref_block_bytes: hex,
  ref_block_hash: hex,
  expiration: int64,
  fee_limit: int64.optional(),
  timestamp: int64.optional(),
  data: hex.optional(),
});

/** JSON numbers lose precision past 2^53; the node prints int64 as numbers, so refuse what would be garbled. */
function jsonInt(value: bigint): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new TypeError(`${value} does not fit a JSON number`);
  return Number(value);
}

/** Renders a raw transaction as the node's JSON; refuses content other than one trigger. */
export function transactionJson(
  raw: RawTransaction,
  visible: boolean,
  signatures?: string[],
): TransactionJson {
  const rawBytes = encodeRaw(raw);
  const addr = (a: string) => (visible ? toTronAddress(a) : a);
  const contract = raw.contracts.map((c) => {
    if (c.type !== TRIGGER_SMART_CONTRACT) throw new TypeError(`contract type ${c.type} is not supported`);
    const t = decodeTrigger(c.parameter);
    const value: TriggerValueJson = {
      owner_address: addr(t.ownerAddress),
      contract_address: addr(t.contractAddress),
      ...(t.data ? { data: t.data } : {}),
      ...(t.callValue ? { call_value: jsonInt(t.callValue) } : {}),
      ...(t.callTokenValue ? { call_token_value: jsonInt(t.callTokenValue) } : {}),
      ...(t.tokenId ? { token_id: jsonInt(t.tokenId) } : {}),
    };
    return {
      parameter: { value, type_url: c.typeUrl },
      type: 'TriggerSmartContract',
      ...(c.permissionId ? { Permission_id: c.permissionId } : {}),
    };
  });
  return {
    visible,
    txID: txIdOf(rawBytes),
    raw_data: {
      contract,
      ref_block_bytes: raw.refBlockBytes,
      ref_block_hash: raw.refBlockHash,
      expiration: raw.expiration,
      ...(raw.feeLimit ? { fee_limit: raw.feeLimit } : {}),
      timestamp: raw.timestamp,
      ...(raw.data ? { data: raw.data } : {}),
    },
    raw_data_hex: bytesToHex(rawBytes),
    ...(signatures ? { signature: signatures } : {}),
  };
}

/**
 * Parses a `raw_data` JSON object back into a raw transaction, as a node does on
 * `broadcasttransaction`. Addresses may be in any spelling. Throws a TypeError on anything else.
 */
export function rawFromJson(json: unknown): RawTransaction {
  const parsed = rawDataSchema.safeParse(json);
  if (!parsed.success) throw new TypeError(`malformed raw_data: ${parsed.error.issues[0]?.message ?? ''}`);
  const r = parsed.data;
  const [c] = r.contract;
  const v = c!.parameter.value;
  const contract = triggerContract({
    ownerAddress: toTronHex(v.owner_address),
    contractAddress: toTronHex(v.contract_address),
    data: normalizeHex(v.data ?? ''),
    callValue: BigInt(v.call_value ?? 0),
    callTokenValue: BigInt(v.call_token_value ?? 0),
    tokenId: BigInt(v.token_id ?? 0),
  });
  return {
    refBlockBytes: normalizeHex(r.ref_block_bytes),
    refBlockHash: normalizeHex(r.ref_block_hash),
    expiration: r.expiration,
    timestamp: r.timestamp ?? 0,
    feeLimit: r.fee_limit ?? 0,
    data: normalizeHex(r.data ?? ''),
    contracts: [{ ...contract, permissionId: c!.Permission_id ?? 0 }],
  };
}
