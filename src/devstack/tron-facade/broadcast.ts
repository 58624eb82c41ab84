import { toTronAddress } from '../../chains/tron/address.ts';
import { bytesToHex, hexToBytes, isHex, normalizeHex } from '../../chains/tron/hex.ts';
import { recoverTxSigner } from '../../chains/tron/signature.ts';
import { soleCreate } from '../../chains/tron/tx-create.ts';
import { rawFromJson, transactionJson } from '../../chains/tron/tx-json.ts';
import {
  decodeRaw,
  decodeSignedTransaction,
  encodeRaw,
  type RawTransaction,
  soleTrigger,
  txIdOf,
} from '../../chains/tron/tx-raw.ts';
import { blockIdOf, blockTimeMs, type ChainView, refBlockOf } from './chain.ts';
import type { EvmRpc } from './evm-rpc.ts';
import { executeAsOwner, executeCreateAsOwner } from './execute.ts';
import { BadRequest, type Params, utf8Hex } from './params.ts';
import type { TxStore } from './tx-store.ts';

/**
 * `broadcasttransaction` and `broadcasthex`: the checks java-tron makes before accepting a
 * transaction, in its order (duplicate, TaPoS, expiration, signature, contract), then execution on
 * anvil. A refused transaction is never executed.
 */

/** java-tron's MAXIMUM_TIME_UNTIL_EXPIRATION: a transaction may not be valid for longer than a day. */
const MAX_EXPIRATION_AHEAD_MS = 24 * 60 * 60 * 1000;
/** TaPoS references live in a ring of 65536 recent blocks indexed by the number's low two bytes. */
const TAPOS_RING = 65_536;
const SIGNATURE_HEX_CHARS = 130;

type Verdict = { result: true; txid: string } | { code: string; txid: string; message: string };

const refuse = (code: string, txid: string, message: string): Verdict => ({
  code,
  txid,
  message: utf8Hex(message),
});

export interface BroadcastHandlers {
  broadcastJson(params: Params): Promise<object>;
  broadcastHex(params: Params): Promise<object>;
}

export function createBroadcastHandlers(rpc: EvmRpc, chain: ChainView, store: TxStore): BroadcastHandlers {
  // One broadcast at a time: the duplicate check and the impersonated send must not interleave.
  let tail: Promise<unknown> = Promise.resolve();
  const serialized = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };

  async function taposError(raw: RawTransaction): Promise<string | undefined> {
    if (raw.refBlockBytes.length !== 4 || raw.refBlockHash.length !== 16)
      return 'TaPoS reference is malformed';
    const head = await chain.head();
    const low = Number.parseInt(raw.refBlockBytes, 16);
    const n = head - ((((head - low) % TAPOS_RING) + TAPOS_RING) % TAPOS_RING);
    const block = n >= 0 ? await chain.block(n) : undefined;
    if (!block) return `No block_hash in recentBlockStore, blockNum=${low}`;
    const expected = refBlockOf(blockIdOf(block)).refBlockHash;
    if (expected !== raw.refBlockHash) {
      return `Tapos failed, different block hash, ${low}, ${raw.refBlockHash}, recent block ${expected}`;
    }
    return undefined;
  }

  async function submit(raw: RawTransaction, signatures: string[]): Promise<Verdict> {
    const txid = txIdOf(encodeRaw(raw));
    if (store.byTxId(txid)) return refuse('DUP_TRANSACTION_ERROR', txid, 'Dup transaction.');
    const tapos = await taposError(raw);
    if (tapos) return refuse('TAPOS_ERROR', txid, tapos);
    const headTime = blockTimeMs(await chain.latest());
    if (raw.expiration <= headTime || raw.expiration > headTime + MAX_EXPIRATION_AHEAD_MS) {
      const msg = `Transaction expiration, transaction expiration time is ${raw.expiration}, but headBlockTime is ${headTime}`;
      return refuse('TRANSACTION_EXPIRATION_ERROR', txid, msg);
    }
    const call = soleTrigger(raw);
    const create = call ? undefined : soleCreate(raw);
    const owner = call?.ownerAddress ?? create?.ownerAddress;
    if (owner === undefined)
      return refuse(
        'CONTRACT_VALIDATE_ERROR',
        txid,
        'the facade executes only a single TriggerSmartContract or CreateSmartContract',
      );
    const sigError = signatureError(txid, owner, raw.contracts[0]!.permissionId, signatures);
    if (sigError) return refuse('SIGERROR', txid, sigError);
    const remember = (evmHash: string, gas: number) =>
      store.put({ txId: txid, evmHash, json: transactionJson(raw, false, signatures), gas });
    const execError = call
      ? await executeAsOwner(rpc, call, raw.feeLimit, remember)
      : await executeCreateAsOwner(rpc, create!, raw.feeLimit, remember);
    if (execError) return refuse('CONTRACT_VALIDATE_ERROR', txid, execError);
    return { result: true, txid };
  }

  return {
    broadcastJson: (params) =>
      serialized(async () => {
        let raw: RawTransaction;
        try {
          raw = rawFromJson(params.raw_data, { creates: true });
        } catch (error) {
          throw new BadRequest((error as Error).message);
        }
        return submit(raw, signaturesOf(params.signature));
      }),
    broadcastHex: (params) =>
      serialized(async () => {
        const hex = params.transaction;
        if (typeof hex !== 'string' || !isHex(hex)) throw new BadRequest('transaction must be hex');
        let raw: RawTransaction;
        let signatures: string[];
        try {
          const signed = decodeSignedTransaction(hexToBytes(hex));
          raw = decodeRaw(signed.rawBytes);
          // Execution must run exactly what was signed, so fields this codec drops are refused.
          if (bytesToHex(encodeRaw(raw)) !== bytesToHex(signed.rawBytes))
            throw new Error('non-canonical raw_data');
          signatures = signed.signatures.map(bytesToHex);
        } catch (error) {
          throw new BadRequest(`cannot decode transaction: ${(error as Error).message}`);
        }
        const verdict = await submit(raw, signatures);
        if (!('result' in verdict)) return verdict;
        return { ...verdict, transaction: JSON.stringify(transactionJson(raw, false, signatures)) };
      }),
  };
}

function signaturesOf(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string' && isHex(s))) {
    throw new BadRequest('signature must be an array of hex strings');
  }
  return value.map((s: string) => normalizeHex(s));
}

/**
 * Owner permission only, threshold 1, the owner's own key: the default of every Tron account.
 * Multi-signature and active permissions are not modelled.
 */
function signatureError(
  txid: string,
  ownerHex: string,
  permissionId: number,
  signatures: string[],
): string | undefined {
  if (permissionId !== 0) return `permission ${permissionId} is not modelled by the facade`;
  if (signatures.length === 0) return 'miss sig or contract';
  if (signatures.length > 1)
    return `Signature count is ${signatures.length} more than key counts of permission : 1`;
  const sig = signatures[0]!;
  if (sig.length !== SIGNATURE_HEX_CHARS) return `Signature size is ${sig.length / 2}`;
  let signer: string;
  try {
    signer = recoverTxSigner(txid, sig);
  } catch {
    return 'Validate signature error: signature does not recover';
  }
  if (`41${signer.slice(2).toLowerCase()}` !== ownerHex) {
    return `Validate signature error: ${sig} is signed by ${toTronAddress(signer)} but it is not contained of permission.`;
  }
  return undefined;
}
