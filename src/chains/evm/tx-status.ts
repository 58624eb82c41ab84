import { validation } from '../../errors.ts';
import type { TxState } from '../types.ts';
import { type EvmLog, parseLog } from './logs-parse.ts';
import type { RpcOutcome, RpcTransport } from './rpc/transport.ts';
import { nodeAddress, quantity, smallQuantity } from './util.ts';

/** Transactions, receipts, and the four-way status of section 3.6. */

export interface TxInfo {
  hash: string;
  from: string;
  to: string | null;
  data: string;
  value: bigint;
  nonce: number;
  /** Null while pending. */
  blockNumber: number | null;
}

export interface TxReceipt {
  hash: string;
  /** true: succeeded; false: mined and reverted. */
  success: boolean;
  blockNumber: number;
  blockHash: string;
  gasUsed: bigint;
  contractAddress: string | null;
  logs: EvmLog[];
}

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

function checkHash(hash: string): void {
  if (typeof hash !== 'string' || !TX_HASH.test(hash))
    throw validation('tx_hash must be 0x followed by 64 hex characters');
}

export async function getTransaction(transport: RpcTransport, hash: string): Promise<TxInfo | null> {
  checkHash(hash);
  return parseTx(await transport.request('eth_getTransactionByHash', [hash]));
}

export async function getReceipt(transport: RpcTransport, hash: string): Promise<TxReceipt | null> {
  checkHash(hash);
  return parseReceipt(await transport.request('eth_getTransactionReceipt', [hash]));
}

/** Receipt, transaction and head in one batch, so the answer is consistent with a single moment. */
export async function getTxState(transport: RpcTransport, hash: string): Promise<TxState> {
  checkHash(hash);
  const [receipt, tx, head] = await transport.batch([
    { method: 'eth_getTransactionReceipt', params: [hash] },
    { method: 'eth_getTransactionByHash', params: [hash] },
    { method: 'eth_blockNumber', params: [] },
  ]);
  const r = parseReceipt(ok(receipt!));
  if (r) {
    const latest = smallQuantity(ok(head!), 'eth_blockNumber');
    return {
      status: r.success ? 'confirmed' : 'failed',
      blockNumber: r.blockNumber,
      confirmations: Math.max(0, latest - r.blockNumber + 1),
    };
  }
  return { status: parseTx(ok(tx!)) ? 'pending' : 'not_found', confirmations: 0 };
}

function ok(outcome: RpcOutcome): unknown {
  if (!outcome.ok) throw outcome.error;
  return outcome.result;
}

function parseTx(raw: unknown): TxInfo | null {
  if (raw === null || raw === undefined) return null;
  const t = raw as Record<string, unknown>;
  return {
    hash: String(t.hash),
    from: nodeAddress(t.from, 'tx.from'),
    to: typeof t.to === 'string' ? nodeAddress(t.to, 'tx.to') : null,
    data: String(t.input ?? t.data ?? '0x'),
    value: quantity(t.value, 'tx.value'),
    nonce: smallQuantity(t.nonce, 'tx.nonce'),
    blockNumber: t.blockNumber == null ? null : smallQuantity(t.blockNumber, 'tx.blockNumber'),
  };
}

function parseReceipt(raw: unknown): TxReceipt | null {
  if (raw === null || raw === undefined) return null;
  const r = raw as Record<string, unknown>;
  // Some nodes hand out a receipt stub for pending transactions; only a mined one counts.
  if (r.blockNumber == null) return null;
  return {
    hash: String(r.transactionHash),
    success: quantity(r.status, 'receipt.status') === 1n,
    blockNumber: smallQuantity(r.blockNumber, 'receipt.blockNumber'),
    blockHash: String(r.blockHash),
    gasUsed: quantity(r.gasUsed, 'receipt.gasUsed'),
    contractAddress:
      typeof r.contractAddress === 'string'
        ? nodeAddress(r.contractAddress, 'receipt.contractAddress')
        : null,
    logs: Array.isArray(r.logs) ? r.logs.map(parseLog) : [],
  };
}
