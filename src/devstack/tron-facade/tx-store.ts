import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { TransactionJson } from '../../chains/tron/tx-json.ts';

/**
 * What the facade remembers about transactions broadcast through it: the signed Tron transaction and
 * the hash of the EVM transaction that executed it. Optionally appended to a JSON-lines file so a dev
 * stack restarted over a persisted anvil state still answers for old txIDs.
 */

export interface StoredTx {
  txId: string;
  evmHash: string;
  /** The signed transaction as the node's JSON (`visible` false). */
  json: TransactionJson;
  /** Gas the EVM call was given (fee_limit converted), to tell running out of energy from a revert. */
  gas: number;
}

export interface TxStore {
  put(tx: StoredTx): void;
  byTxId(txId: string): StoredTx | undefined;
  byEvmHash(evmHash: string): StoredTx | undefined;
}

export function createTxStore(stateFile?: string): TxStore {
  const byId = new Map<string, StoredTx>();
  const byHash = new Map<string, StoredTx>();
  const index = (tx: StoredTx) => {
    byId.set(tx.txId, tx);
    byHash.set(tx.evmHash.toLowerCase(), tx);
  };
  if (stateFile && existsSync(stateFile)) {
    for (const line of readFileSync(stateFile, 'utf8').split('\n')) {
      if (line.trim()) index(JSON.parse(line) as StoredTx);
    }
  }
  return {
    put(tx) {
      index(tx);
      if (stateFile) appendFileSync(stateFile, `${JSON.stringify(tx)}\n`);
    },
    byTxId: (txId) => byId.get(txId.toLowerCase()),
    byEvmHash: (evmHash) => byHash.get(evmHash.toLowerCase()),
  };
}
