import { z } from 'zod';
import { toTronAddress, toTronHex } from './address.ts';
import { bytesToHex, isHex, normalizeHex } from './hex.ts';
import { CREATE_SMART_CONTRACT, CREATE_TYPE_URL, createContract, decodeCreate } from './tx-create.ts';
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
 * true: base58). TriggerSmartContract is what the service builds, signs or broadcasts; CreateSmartContract
 * is rendered too (contracts:deploy), but only a trigger is parsed back from JSON.
 */

export interface TriggerValueJson {
  owner_address: string;
  contract_address: string;
  data?: string;
  call_value?: number;
  call_token_value?: number;
  token_id?: number;
}

export interface CreateValueJson {
  owner_address: string;
  new_contract: {
    origin_address: string;
    abi: object;
    bytecode: string;
    name?: string;
    call_value?: number;
    consume_user_resource_percent?: number;
    origin_energy_limit?: number;
  };
  call_token_value?: number;
  token_id?: number;
}

export interface RawDataJson {
  contract: {
    parameter: { value: TriggerValueJson | CreateValueJson; type_url: string };
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

const triggerSchema = z.object({
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
});

const createSchema = z.object({
  type: z.literal('CreateSmartContract'),
  Permission_id: int64.optional(),
  parameter: z.object({
    type_url: z.literal(CREATE_TYPE_URL).optional(),
    value: z.object({
      owner_address: z.string(),
      new_contract: z.object({
        origin_address: z.string().optional(),
        // Only an empty ABI is carried (see tx-create.ts).
        abi: z
          .union([z.object({ entrys: z.array(z.never()).optional() }).strict(), z.array(z.never())])
          .optional(),
        bytecode: hex,
        name: z.string().optional(),
        call_value: int64.optional(),
        consume_user_resource_percent: int64.optional(),
        origin_energy_limit: int64.optional(),
      }),
      call_token_value: int64.optional(),
      token_id: int64.optional(),
    }),
  }),
});

const rawDataSchema = (contract: z.ZodType<z.infer<typeof triggerSchema> | z.infer<typeof createSchema>>) =>
  z.object({
    contract: z.array(contract).length(1),
    ref_block_bytes: hex,
    ref_block_hash: hex,
    expiration: int64,
    fee_limit: int64.optional(),
    timestamp: int64.optional(),
    data: hex.optional(),
  });
const triggerRawData = rawDataSchema(triggerSchema);
const anyRawData = rawDataSchema(z.discriminatedUnion('type', [triggerSchema, createSchema]));

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
    const common = {
      ...(c.permissionId ? { Permission_id: c.permissionId } : {}),
    };
    if (c.type === CREATE_SMART_CONTRACT) {
      const d = decodeCreate(c.parameter);
      if (d.abi) throw new TypeError('a CreateSmartContract with an ABI is not rendered');
      const value: CreateValueJson = {
        owner_address: addr(d.ownerAddress),
        new_contract: {
          origin_address: addr(d.originAddress),
          abi: {},
          bytecode: d.bytecode,
          ...(d.name ? { name: d.name } : {}),
          ...(d.callValue ? { call_value: jsonInt(d.callValue) } : {}),
          ...(d.consumeUserResourcePercent
            ? { consume_user_resource_percent: jsonInt(d.consumeUserResourcePercent) }
            : {}),
          ...(d.originEnergyLimit ? { origin_energy_limit: jsonInt(d.originEnergyLimit) } : {}),
        },
        ...(d.callTokenValue ? { call_token_value: jsonInt(d.callTokenValue) } : {}),
        ...(d.tokenId ? { token_id: jsonInt(d.tokenId) } : {}),
      };
      return { parameter: { value, type_url: c.typeUrl }, type: 'CreateSmartContract', ...common };
    }
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
    return { parameter: { value, type_url: c.typeUrl }, type: 'TriggerSmartContract', ...common };
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
 * `broadcasttransaction`. Addresses may be in any spelling. One TriggerSmartContract, or with
 * `creates` also one CreateSmartContract (a node's view; the service takes triggers only). Throws a
 * TypeError on anything else.
 */
export function rawFromJson(json: unknown, opts: { creates?: boolean } = {}): RawTransaction {
  const parsed = (opts.creates ? anyRawData : triggerRawData).safeParse(json);
  if (!parsed.success) throw new TypeError(`malformed raw_data: ${parsed.error.issues[0]?.message ?? ''}`);
  const r = parsed.data;
  const c = r.contract[0]!;
  return {
    refBlockBytes: normalizeHex(r.ref_block_bytes),
    refBlockHash: normalizeHex(r.ref_block_hash),
    expiration: r.expiration,
    timestamp: r.timestamp ?? 0,
    feeLimit: r.fee_limit ?? 0,
    data: normalizeHex(r.data ?? ''),
    contracts: [{ ...contractFromJson(c), permissionId: c.Permission_id ?? 0 }],
  };
}

function contractFromJson(c: z.infer<typeof triggerSchema> | z.infer<typeof createSchema>) {
  const token = (v: { call_token_value?: number; token_id?: number }) => ({
    callTokenValue: BigInt(v.call_token_value ?? 0),
    tokenId: BigInt(v.token_id ?? 0),
  });
  if (c.type === 'TriggerSmartContract') {
    const v = c.parameter.value;
    return triggerContract({
      ownerAddress: toTronHex(v.owner_address),
      contractAddress: toTronHex(v.contract_address),
      data: normalizeHex(v.data ?? ''),
      callValue: BigInt(v.call_value ?? 0),
      ...token(v),
    });
  }
  const v = c.parameter.value;
  const n = v.new_contract;
  return createContract({
    ownerAddress: toTronHex(v.owner_address),
    originAddress: n.origin_address ? toTronHex(n.origin_address) : '',
    abi: '',
    bytecode: normalizeHex(n.bytecode),
    name: n.name ?? '',
    callValue: BigInt(n.call_value ?? 0),
    consumeUserResourcePercent: BigInt(n.consume_user_resource_percent ?? 0),
    originEnergyLimit: BigInt(n.origin_energy_limit ?? 0),
    otherFields: [],
    ...token(v),
  });
}
