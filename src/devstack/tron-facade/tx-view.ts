import { bytesToHex } from '../../chains/tron/hex.ts';
import { TRIGGER_TYPE_URL } from '../../chains/tron/tx-raw.ts';
import { blockNumberOf, blockTimeMs } from './chain.ts';
import type { EvmBlock, EvmReceipt, EvmRpc, EvmTransaction } from './evm-rpc.ts';
import { toQuantity } from './evm-rpc.ts';
import { ENERGY_PRICE_SUN, WEI_PER_SUN } from './resources.ts';
import type { StoredTx, TxStore } from './tx-store.ts';

/**
 * Tron-shaped answers about transactions, read from anvil receipts. Energy is not modelled: EVM gas
 * stands in for energy and the fee is gas × a nominal energy price, charged to nobody.
 */

export type ContractRet = 'SUCCESS' | 'REVERT' | 'OUT_OF_ENERGY';

const hex = (value: string) => value.replace(/^0x/, '').toLowerCase();
const utf8Hex = (text: string) => bytesToHex(new TextEncoder().encode(text));

function contractRet(receipt: EvmReceipt, gasGiven: number | undefined): ContractRet {
  if (receipt.status === '0x1') return 'SUCCESS';
  return gasGiven !== undefined && Number(receipt.gasUsed) >= gasGiven ? 'OUT_OF_ENERGY' : 'REVERT';
}

export interface TxView {
  /** `gettransactioninfobyid`: `{}` when unknown, unmined or mined above `maxBlock`. */
  info(id: string, maxBlock: number): Promise<object>;
  /**
   * `gettransactionbyid`: like java-tron's, it reads blocks only, so `{}` until the transaction is
   * mined at or below `maxBlock`.
   */
  transaction(id: string, maxBlock: number): Promise<object>;
  /** `gettransactionfrompending`: the transaction while it waits for a block, then `{}`. */
  pending(id: string): Promise<object>;
  /** `gettransactioninfobyblocknum`: the infos of every transaction in block `n`, in order. */
  blockInfos(block: EvmBlock): Promise<object[]>;
  /** The transactions of a block as a Tron block lists them. */
  blockTransactions(block: EvmBlock): Promise<object[]>;
}

export function createTxView(rpc: EvmRpc, store: TxStore): TxView {
  /** A Tron id is a stored txID, or else the EVM hash of a transaction sent to anvil directly. */
  const evmHashOf = (id: string) => store.byTxId(hex(id))?.evmHash ?? `0x${hex(id)}`;
  const tronIdOf = (evmHash: string) => store.byEvmHash(evmHash)?.txId ?? hex(evmHash);
  const receipt = (hash: string) => rpc.call<EvmReceipt | null>('eth_getTransactionReceipt', [hash]);
  const evmTx = (hash: string) => rpc.call<EvmTransaction | null>('eth_getTransactionByHash', [hash]);

  async function gasGiven(r: EvmReceipt, stored: StoredTx | undefined): Promise<number | undefined> {
    if (r.status === '0x1') return undefined;
    if (stored) return stored.gas;
    const tx = await evmTx(r.transactionHash);
    return tx ? Number(tx.gas) : undefined;
  }

  async function infoJson(r: EvmReceipt, block: EvmBlock): Promise<object> {
    const stored = store.byEvmHash(r.transactionHash);
    const ret = contractRet(r, await gasGiven(r, stored));
    const energy = Number(r.gasUsed);
    const fee = energy * ENERGY_PRICE_SUN;
    const target = r.contractAddress ?? r.to;
    return {
      id: tronIdOf(r.transactionHash),
      fee,
      blockNumber: blockNumberOf(block),
      blockTimeStamp: blockTimeMs(block),
      // Return data is not in an EVM receipt; the facade does not replay calls to recover it.
      contractResult: [''],
      ...(target ? { contract_address: `41${hex(target)}` } : {}),
      receipt: { energy_fee: fee, energy_usage_total: energy, result: ret },
      // Tron logs carry the 20-byte address without the 41 prefix, and hex without 0x.
      log: r.logs.map((l) => ({
        address: hex(l.address),
        topics: l.topics.map(hex),
        ...(hex(l.data) ? { data: hex(l.data) } : {}),
      })),
      ...(ret === 'SUCCESS' ? {} : { result: 'FAILED', resMessage: utf8Hex(ret) }),
    };
  }

  /** A transaction sent to anvil directly has no Tron form; this is a labelled approximation. */
  function nativeJson(tx: EvmTransaction, ret: ContractRet | undefined): object {
    const value = {
      owner_address: `41${hex(tx.from)}`,
      ...(tx.to ? { contract_address: `41${hex(tx.to)}` } : {}),
      data: hex(tx.input),
      ...(BigInt(tx.value) ? { call_value: Number(BigInt(tx.value) / WEI_PER_SUN) } : {}),
    };
    const type = tx.to ? 'TriggerSmartContract' : 'CreateSmartContract';
    return {
      ...(ret ? { ret: [{ contractRet: ret }] } : {}),
      txID: hex(tx.hash),
      raw_data: { contract: [{ parameter: { value, type_url: tx.to ? TRIGGER_TYPE_URL : '' }, type }] },
      visible: false,
      evm_native: true,
    };
  }

  async function txJson(hash: string): Promise<{ json: object; block?: number } | undefined> {
    const stored = store.byEvmHash(hash);
    const r = await receipt(hash);
    const ret = r ? contractRet(r, await gasGiven(r, stored)) : undefined;
    const block = r ? Number(r.blockNumber) : undefined;
    if (stored) return { json: { ...(ret ? { ret: [{ contractRet: ret }] } : {}), ...stored.json }, block };
    const tx = await evmTx(hash);
    return tx ? { json: nativeJson(tx, ret), block } : undefined;
  }

  return {
    async info(id, maxBlock) {
      const r = await receipt(evmHashOf(id));
      if (!r || Number(r.blockNumber) > maxBlock) return {};
      const block = await rpc.call<EvmBlock>('eth_getBlockByNumber', [r.blockNumber, false]);
      return infoJson(r, block);
    },
    async transaction(id, maxBlock) {
      const found = await txJson(evmHashOf(id));
      return found?.block !== undefined && found.block <= maxBlock ? found.json : {};
    },
    async pending(id) {
      const found = await txJson(evmHashOf(id));
      return found && found.block === undefined ? found.json : {};
    },
    async blockInfos(block) {
      const receipts = await rpc.call<EvmReceipt[]>('eth_getBlockReceipts', [
        toQuantity(blockNumberOf(block)),
      ]);
      return Promise.all(receipts.map((r) => infoJson(r, block)));
    },
    async blockTransactions(block) {
      const all = await Promise.all(block.transactions.map((h) => txJson(h)));
      return all.flatMap((t) => (t ? [t.json] : []));
    },
  };
}
