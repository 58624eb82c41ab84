import { bytesToHex, hexToBytes } from './hex.ts';
import { bytesField, decodeFields, protoWriter, varintField } from './protobuf.ts';
import type { RawContract, RawTransaction } from './tx-raw.ts';

/**
 * `protocol.CreateSmartContract` (core/contract/smart_contract.proto): deploying a contract on Tron.
 * The gateway deploys with an empty ABI (the service calls by selector; an explorer gets the ABI when
 * the source is verified there), the caller paying all of a call's energy (100 %).
 */

/** `Transaction.Contract.ContractType.CreateSmartContract`. */
export const CREATE_SMART_CONTRACT = 30;
export const CREATE_TYPE_URL = 'type.googleapis.com/protocol.CreateSmartContract';

/** A deployment; addresses 21-byte hex (`41…`), bytecode hex without `0x` (creation code + arguments). */
export interface CreateCall {
  ownerAddress: string;
  /** `SmartContract.origin_address`: the node sets the owner. */
  originAddress: string;
  bytecode: string;
  name: string;
  callValue: bigint;
  /** Share of a caller's energy the caller pays, percent; the rest comes from the deployer. */
  consumeUserResourcePercent: bigint;
  /** Most energy the deployer pays per call on a caller's behalf. */
  originEnergyLimit: bigint;
  callTokenValue: bigint;
  tokenId: bigint;
  /** The ABI message, hex; empty for the gateway's deployments. */
  abi: string;
  /** Fields this codec does not carry (SmartContract's contract_address, code_hash, …), by number. */
  otherFields: number[];
}

const SMART_CONTRACT_FIELDS = new Set([1, 3, 4, 5, 6, 7, 8]);

function encodeSmartContract(c: CreateCall): Uint8Array {
  // java-tron always sets the ABI message, so an empty one is still written (as `1a 00`).
  return protoWriter()
    .bytes(1, hexToBytes(c.originAddress))
    .message(3, hexToBytes(c.abi))
    .bytes(4, hexToBytes(c.bytecode))
    .varint(5, c.callValue)
    .varint(6, c.consumeUserResourcePercent)
    .bytes(7, new TextEncoder().encode(c.name))
    .varint(8, c.originEnergyLimit)
    .finish();
}

export function encodeCreate(c: CreateCall): Uint8Array {
  return protoWriter()
    .bytes(1, hexToBytes(c.ownerAddress))
    .message(2, encodeSmartContract(c))
    .varint(3, c.callTokenValue)
    .varint(4, c.tokenId)
    .finish();
}

export function decodeCreate(bytes: Uint8Array): CreateCall {
  const f = decodeFields(bytes);
  const sc = decodeFields(bytesField(f, 2));
  return {
    ownerAddress: bytesToHex(bytesField(f, 1)),
    originAddress: bytesToHex(bytesField(sc, 1)),
    abi: bytesToHex(bytesField(sc, 3)),
    bytecode: bytesToHex(bytesField(sc, 4)),
    callValue: BigInt.asIntN(64, varintField(sc, 5)),
    consumeUserResourcePercent: BigInt.asIntN(64, varintField(sc, 6)),
    name: new TextDecoder().decode(bytesField(sc, 7)),
    originEnergyLimit: BigInt.asIntN(64, varintField(sc, 8)),
    callTokenValue: BigInt.asIntN(64, varintField(f, 3)),
    tokenId: BigInt.asIntN(64, varintField(f, 4)),
    otherFields: [
      ...[...f.keys()].filter((n) => n > 4),
      ...[...sc.keys()].filter((n) => !SMART_CONTRACT_FIELDS.has(n)),
    ],
  };
}

export function createContract(c: CreateCall): RawContract {
  return {
    type: CREATE_SMART_CONTRACT,
    typeUrl: CREATE_TYPE_URL,
    parameter: encodeCreate(c),
    permissionId: 0,
  };
}

/** The single CreateSmartContract of a raw transaction, or undefined when it holds anything else. */
export function soleCreate(raw: RawTransaction): CreateCall | undefined {
  const [only, ...rest] = raw.contracts;
  if (!only || rest.length > 0 || only.type !== CREATE_SMART_CONTRACT || only.typeUrl !== CREATE_TYPE_URL)
    return undefined;
  return decodeCreate(only.parameter);
}
