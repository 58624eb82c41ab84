import { bytesToHex, hexToBytes, sha256Hex } from './hex.ts';
import {
  bytesField,
  decodeFields,
  ProtoDecodeError,
  protoWriter,
  repeatedBytes,
  varintField,
} from './protobuf.ts';

/**
 * Tron's `protocol.Transaction` and its `raw` part (core/Tron.proto), limited to what a TRC-20 call
 * needs. Field numbers are java-tron's; encoding follows proto3, so the bytes (and therefore the
 * txID) match what a real node and tronweb produce for the same content.
 */

/** `Transaction.Contract.ContractType.TriggerSmartContract`. */
export const TRIGGER_SMART_CONTRACT = 31;
export const TRIGGER_TYPE_URL = 'type.googleapis.com/protocol.TriggerSmartContract';

/** `protocol.TriggerSmartContract`; addresses are 21-byte hex (`41…`), data is hex without `0x`. */
export interface TriggerCall {
  ownerAddress: string;
  contractAddress: string;
  callValue: bigint;
  data: string;
  callTokenValue: bigint;
  tokenId: bigint;
}

/** One `Transaction.Contract`; `parameter` is the packed `Any.value`. */
export interface RawContract {
  type: number;
  typeUrl: string;
  parameter: Uint8Array;
  permissionId: number;
}

/** `Transaction.raw`; hex fields without `0x`, times in milliseconds, fees in sun. */
export interface RawTransaction {
  refBlockBytes: string;
  refBlockHash: string;
  expiration: number;
  timestamp: number;
  feeLimit: number;
  /** The memo (`raw.data`), hex. */
  data: string;
  contracts: RawContract[];
}

const safeNumber = (value: bigint, what: string): number => {
  const signed = BigInt.asIntN(64, value);
  if (signed < 0n || signed > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ProtoDecodeError(`${what} out of range`);
  return Number(signed);
};

export function encodeTrigger(call: TriggerCall): Uint8Array {
  return protoWriter()
    .bytes(1, hexToBytes(call.ownerAddress))
    .bytes(2, hexToBytes(call.contractAddress))
    .varint(3, call.callValue)
    .bytes(4, hexToBytes(call.data))
    .varint(5, call.callTokenValue)
    .varint(6, call.tokenId)
    .finish();
}

export function decodeTrigger(bytes: Uint8Array): TriggerCall {
  const f = decodeFields(bytes);
  return {
    ownerAddress: bytesToHex(bytesField(f, 1)),
    contractAddress: bytesToHex(bytesField(f, 2)),
    callValue: BigInt.asIntN(64, varintField(f, 3)),
    data: bytesToHex(bytesField(f, 4)),
    callTokenValue: BigInt.asIntN(64, varintField(f, 5)),
    tokenId: BigInt.asIntN(64, varintField(f, 6)),
  };
}

/** A raw transaction holding exactly one TriggerSmartContract. */
export function triggerContract(call: TriggerCall): RawContract {
  return {
    type: TRIGGER_SMART_CONTRACT,
    typeUrl: TRIGGER_TYPE_URL,
    parameter: encodeTrigger(call),
    permissionId: 0,
  };
}

function encodeContract(c: RawContract): Uint8Array {
  const any = protoWriter().bytes(1, new TextEncoder().encode(c.typeUrl)).bytes(2, c.parameter).finish();
  return protoWriter().varint(1, c.type).bytes(2, any).varint(5, c.permissionId).finish();
}

function decodeContract(bytes: Uint8Array): RawContract {
  const f = decodeFields(bytes);
  const any = decodeFields(bytesField(f, 2));
  return {
    type: safeNumber(varintField(f, 1), 'contract type'),
    typeUrl: new TextDecoder().decode(bytesField(any, 1)),
    parameter: bytesField(any, 2),
    permissionId: safeNumber(varintField(f, 5), 'Permission_id'),
  };
}

/** Serializes `Transaction.raw` in field order, as java-tron does. */
export function encodeRaw(raw: RawTransaction): Uint8Array {
  const w = protoWriter()
    .bytes(1, hexToBytes(raw.refBlockBytes))
    .bytes(4, hexToBytes(raw.refBlockHash))
    .varint(8, raw.expiration)
    .bytes(10, hexToBytes(raw.data));
  for (const c of raw.contracts) w.bytes(11, encodeContract(c));
  return w.varint(14, raw.timestamp).varint(18, raw.feeLimit).finish();
}

/** Parses `Transaction.raw`; deprecated fields (ref_block_num, auths, scripts) are ignored. */
export function decodeRaw(bytes: Uint8Array): RawTransaction {
  const f = decodeFields(bytes);
  return {
    refBlockBytes: bytesToHex(bytesField(f, 1)),
    refBlockHash: bytesToHex(bytesField(f, 4)),
    expiration: safeNumber(varintField(f, 8), 'expiration'),
    timestamp: safeNumber(varintField(f, 14), 'timestamp'),
    feeLimit: safeNumber(varintField(f, 18), 'fee_limit'),
    data: bytesToHex(bytesField(f, 10)),
    contracts: repeatedBytes(f, 11).map(decodeContract),
  };
}

/** The transaction id: SHA-256 of the serialized `raw_data`. */
export const txIdOf = (rawBytes: Uint8Array): string => sha256Hex(rawBytes);

/** `protocol.Transaction` with its signatures, as `broadcasthex` takes it. */
export function encodeSignedTransaction(rawBytes: Uint8Array, signatures: Uint8Array[]): Uint8Array {
  const w = protoWriter().bytes(1, rawBytes);
  for (const s of signatures) w.bytes(2, s);
  return w.finish();
}

export function decodeSignedTransaction(bytes: Uint8Array): {
  rawBytes: Uint8Array;
  signatures: Uint8Array[];
} {
  const f = decodeFields(bytes);
  return { rawBytes: bytesField(f, 1), signatures: repeatedBytes(f, 2) };
}

/** The single TriggerSmartContract of a raw transaction, or undefined when it holds anything else. */
export function soleTrigger(raw: RawTransaction): TriggerCall | undefined {
  const [only, ...rest] = raw.contracts;
  if (!only || rest.length > 0 || only.type !== TRIGGER_SMART_CONTRACT || only.typeUrl !== TRIGGER_TYPE_URL) {
    return undefined;
  }
  return decodeTrigger(only.parameter);
}
