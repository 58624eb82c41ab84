/**
 * The hand-written protobuf codec against tronweb's generated one (an independent implementation),
 * and txID = SHA-256(raw_data).
 */
import { createHash } from 'node:crypto';
import { utils } from 'tronweb';
import { describe, expect, it } from 'vitest';
import { bytesToHex, hexToBytes } from '../../src/chains/tron/hex.ts';
import { decodeFields, protoWriter } from '../../src/chains/tron/protobuf.ts';
import { rawFromJson, transactionJson } from '../../src/chains/tron/tx-json.ts';
import {
  decodeRaw,
  decodeSignedTransaction,
  encodeRaw,
  encodeSignedTransaction,
  type RawTransaction,
  soleTrigger,
  triggerContract,
  txIdOf,
} from '../../src/chains/tron/tx-raw.ts';

const OWNER = '41a614f803b6fd780986a42c78ec9c7f77e6ded13c';
const TOKEN = '41eac1c959c2fa57be4bd9eb973a729d61e4db0067';
const APPROVE_DATA =
  '095ea7b3000000000000000000000000152bebe025df7b58d6263b2116adafa5b691709d0000000000000000000000000000000000000000000000000000000000001388';

function sampleRaw(overrides: Partial<RawTransaction> = {}): RawTransaction {
  return {
    refBlockBytes: '1a2b',
    refBlockHash: '9abdc27eabc9fc16',
    expiration: 1_795_327_877_000,
    timestamp: 1_795_327_818_014,
    feeLimit: 100_000_000,
    data: '',
    contracts: [
      triggerContract({
        ownerAddress: OWNER,
        contractAddress: TOKEN,
        data: APPROVE_DATA,
        callValue: 0n,
        callTokenValue: 0n,
        tokenId: 0n,
      }),
    ],
    ...overrides,
  };
}

/** tronweb's own encoding of a transaction JSON: its generated protobuf classes. */
function tronwebRawHex(json: object): string {
  const pb = utils.transaction.txJsonToPb(json);
  return utils.transaction.txPbToRawDataHex(pb).toLowerCase();
}

describe('Tron transaction protobuf', () => {
  it('encodes raw_data byte for byte as tronweb does, and txID is sha256 of it', () => {
    const json = transactionJson(sampleRaw(), false);
    expect(json.raw_data_hex).toBe(tronwebRawHex(json));
    const sha = createHash('sha256').update(hexToBytes(json.raw_data_hex)).digest('hex');
    expect(json.txID).toBe(sha);
    expect(utils.transaction.txPbToTxID(utils.transaction.txJsonToPb(json)).replace(/^0x/, '')).toBe(
      json.txID,
    );
  });

  it('agrees with tronweb with a call value, a memo and a permission id', () => {
    const raw = sampleRaw({ data: '68656c6c6f' });
    raw.contracts = [
      {
        ...triggerContract({
          ownerAddress: OWNER,
          contractAddress: TOKEN,
          data: APPROVE_DATA,
          callValue: 123_456_789n,
          callTokenValue: 0n,
          tokenId: 0n,
        }),
        permissionId: 2,
      },
    ];
    const json = transactionJson(raw, false);
    expect(json.raw_data_hex).toBe(tronwebRawHex(json));
  });

  it('round-trips raw bytes through decode and encode', () => {
    const bytes = encodeRaw(sampleRaw());
    const decoded = decodeRaw(bytes);
    expect(decoded).toEqual(sampleRaw());
    expect(bytesToHex(encodeRaw(decoded))).toBe(bytesToHex(bytes));
    expect(soleTrigger(decoded)).toEqual({
      ownerAddress: OWNER,
      contractAddress: TOKEN,
      data: APPROVE_DATA,
      callValue: 0n,
      callTokenValue: 0n,
      tokenId: 0n,
    });
  });

  it('decodes what tronweb encoded, and tronweb decodes what we encoded', () => {
    const json = transactionJson(sampleRaw(), false);
    const theirs = utils.deserializeTx.deserializeTransaction('TriggerSmartContract', json.raw_data_hex);
    expect(theirs.contract[0].parameter.value.owner_address.toLowerCase()).toBe(OWNER);
    expect(theirs.contract[0].parameter.value.contract_address.toLowerCase()).toBe(TOKEN);
    expect(theirs.contract[0].parameter.value.data.toLowerCase()).toBe(APPROVE_DATA);
    expect(theirs.fee_limit).toBe(100_000_000);
    expect(theirs.expiration).toBe(1_795_327_877_000);
    expect(decodeRaw(hexToBytes(tronwebRawHex(json)))).toEqual(sampleRaw());
  });

  it('parses the JSON form back to the same bytes, addresses in any spelling', () => {
    const json = transactionJson(sampleRaw(), false);
    expect(bytesToHex(encodeRaw(rawFromJson(json.raw_data)))).toBe(json.raw_data_hex);
    const visible = transactionJson(sampleRaw(), true);
    expect(visible.raw_data.contract[0]!.parameter.value.owner_address).toBe(
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    );
    expect(visible.raw_data_hex).toBe(json.raw_data_hex);
    expect(bytesToHex(encodeRaw(rawFromJson(visible.raw_data)))).toBe(json.raw_data_hex);
    expect(() => rawFromJson({ ...json.raw_data, contract: [] })).toThrow(TypeError);
  });

  it('any change to raw_data changes the txID', () => {
    const a = txIdOf(encodeRaw(sampleRaw()));
    expect(txIdOf(encodeRaw(sampleRaw({ expiration: 1_795_327_877_001 })))).not.toBe(a);
    expect(txIdOf(encodeRaw(sampleRaw({ feeLimit: 100_000_001 })))).not.toBe(a);
  });

  it('wraps raw bytes and signatures in protocol.Transaction and back', () => {
    const raw = encodeRaw(sampleRaw());
    const sig = new Uint8Array(65).fill(7);
    const signed = encodeSignedTransaction(raw, [sig]);
    const back = decodeSignedTransaction(signed);
    expect(bytesToHex(back.rawBytes)).toBe(bytesToHex(raw));
    expect(back.signatures.map(bytesToHex)).toEqual([bytesToHex(sig)]);
  });

  it('encodes varints at the edges and refuses truncated input', () => {
    const bytes = protoWriter()
      .varint(1, 2n ** 63n - 1n)
      .varint(2, -1n)
      .varint(3, 300)
      .finish();
    const f = decodeFields(bytes);
    expect(f.get(1)?.[0]?.value).toBe(2n ** 63n - 1n);
    expect(BigInt.asIntN(64, f.get(2)?.[0]?.value as bigint)).toBe(-1n);
    expect(f.get(3)?.[0]?.value).toBe(300n);
    expect(() => decodeFields(bytes.subarray(0, bytes.length - 1))).toThrow();
    expect(() => decodeRaw(hexToBytes('0a05aabb'))).toThrow();
  });
});
