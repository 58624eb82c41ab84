/**
 * The few pieces of the protobuf wire format that Tron's `Transaction` needs: varints and
 * length-delimited fields. Hand-written rather than generated so the facade and the adapter share one
 * small, auditable codec; the tests cross-check it against tronweb's generated encoder.
 */

/** Wire types used by Tron's transaction messages. */
export const WIRE_VARINT = 0;
export const WIRE_LENGTH_DELIMITED = 2;

/** A protobuf message under construction; fields must be written in ascending field order. */
export interface ProtoWriter {
  varint(field: number, value: bigint | number): ProtoWriter;
  bytes(field: number, value: Uint8Array): ProtoWriter;
  /** An embedded message: written even when empty, since message fields have presence. */
  message(field: number, value: Uint8Array): ProtoWriter;
  finish(): Uint8Array;
}

function encodeVarint(value: bigint, out: number[]): void {
  // int64 negatives are encoded as their 64-bit two's complement (ten bytes), as protobuf does.
  let v = BigInt.asUintN(64, value);
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/**
 * Starts a message. Zero varints and empty byte fields are skipped, which is what proto3 does for
 * singular scalars, so the bytes match java-tron's and tronweb's encoding.
 */
export function protoWriter(): ProtoWriter {
  const out: number[] = [];
  const writer: ProtoWriter = {
    varint(field, value) {
      const v = BigInt(value);
      if (v === 0n) return writer;
      encodeVarint(BigInt((field << 3) | WIRE_VARINT), out);
      encodeVarint(v, out);
      return writer;
    },
    bytes(field, value) {
      return value.length === 0 ? writer : writer.message(field, value);
    },
    message(field, value) {
      encodeVarint(BigInt((field << 3) | WIRE_LENGTH_DELIMITED), out);
      encodeVarint(BigInt(value.length), out);
      for (const b of value) out.push(b);
      return writer;
    },
    finish: () => Uint8Array.from(out),
  };
  return writer;
}

/** One decoded field: a varint (as an unsigned 64-bit bigint) or a byte string. */
export type ProtoValue = { wire: typeof WIRE_VARINT; value: bigint } | { wire: 2; value: Uint8Array };

/** All fields of a message by field number, repeated fields in order of appearance. */
export type ProtoFields = Map<number, ProtoValue[]>;

export class ProtoDecodeError extends Error {
  override readonly name = 'ProtoDecodeError';
}

function readVarint(buf: Uint8Array, pos: { at: number }): bigint {
  let result = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    const byte = buf[pos.at++];
    if (byte === undefined) throw new ProtoDecodeError('truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return BigInt.asUintN(64, result);
  }
  throw new ProtoDecodeError('varint longer than 10 bytes');
}

/**
 * Splits a message into its fields. Fixed-width wire types (1 and 5) are skipped because no field
 * Tron's transaction uses has them; groups (3, 4) are refused.
 */
export function decodeFields(buf: Uint8Array): ProtoFields {
  const fields: ProtoFields = new Map();
  const pos = { at: 0 };
  while (pos.at < buf.length) {
    const key = readVarint(buf, pos);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw new ProtoDecodeError('field number 0');
    let value: ProtoValue | undefined;
    if (wire === WIRE_VARINT) {
      value = { wire: WIRE_VARINT, value: readVarint(buf, pos) };
    } else if (wire === WIRE_LENGTH_DELIMITED) {
      const len = Number(readVarint(buf, pos));
      if (pos.at + len > buf.length) throw new ProtoDecodeError('truncated length-delimited field');
      value = { wire: WIRE_LENGTH_DELIMITED, value: buf.subarray(pos.at, pos.at + len) };
      pos.at += len;
    } else if (wire === 1 || wire === 5) {
      pos.at += wire === 1 ? 8 : 4;
      if (pos.at > buf.length) throw new ProtoDecodeError('truncated fixed-width field');
    } else {
      throw new ProtoDecodeError(`unsupported wire type ${wire}`);
    }
    if (value) fields.set(field, [...(fields.get(field) ?? []), value]);
  }
  return fields;
}

/** The last occurrence of a varint field (protobuf's "last one wins"), or 0n when absent. */
export function varintField(fields: ProtoFields, field: number): bigint {
  const last = fields.get(field)?.at(-1);
  if (!last) return 0n;
  if (last.wire !== WIRE_VARINT) throw new ProtoDecodeError(`field ${field} is not a varint`);
  return last.value;
}

/** The last occurrence of a bytes field, or an empty array when absent. */
export function bytesField(fields: ProtoFields, field: number): Uint8Array {
  const last = fields.get(field)?.at(-1);
  if (!last) return new Uint8Array();
  if (last.wire !== WIRE_LENGTH_DELIMITED) throw new ProtoDecodeError(`field ${field} is not bytes`);
  return last.value;
}

/** Every occurrence of a repeated bytes/message field. */
export function repeatedBytes(fields: ProtoFields, field: number): Uint8Array[] {
  return (fields.get(field) ?? []).map((v) => {
    if (v.wire !== WIRE_LENGTH_DELIMITED) throw new ProtoDecodeError(`field ${field} is not bytes`);
    return v.value;
  });
}
