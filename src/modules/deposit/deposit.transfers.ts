import { id as topicOf } from 'ethers';
import { type EvmLog, wordAddress } from '../../chains/evm/index.ts';
import { unavailable } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import type { DepositNetwork } from './deposit.chain.ts';
import { settlementOf } from './deposit.transition.ts';

/**
 * Decoding a chunk's logs into the scanner's transfers, in two passes: {@link tokenTransfers} keeps the
 * token transfers and names their recipients (what the issued addresses are looked up by), then
 * {@link transferColumns} decodes only those to issued addresses, of which a chunk has few, into the
 * columns of the scanner's statement (deposit.record.ts). Addresses and hashes are lowercase hex:
 * issued addresses are stored so and matched by plain equality, so nothing is checksummed here.
 */

export const TRANSFER_TOPIC = topicOf('Transfer(address,address,uint256)');

/** The input columns of the scanner's statement, one entry per transfer, in the order of its parameters. */
export const TRANSFER_INPUT = [
  'id',
  'txHash',
  'logIndex',
  'block',
  'blockHash',
  'payer',
  'recipient',
  'amount',
  'credited',
  'kind',
  'addressId',
  'token',
] as const;

export type TransferColumns = Record<(typeof TRANSFER_INPUT)[number], (string | number | bigint)[]>;

/** A chunk's token transfers: the logs, each one's token (its index in the network's list) and recipient. */
export interface TokenTransfers {
  logs: EvmLog[];
  tokens: number[];
  recipients: string[];
}

/**
 * The logs that are transfers of a configured token in the standard indexed layout, with their
 * recipients. A node's answer that could corrupt the statement's comma-separated columns (a comma in
 * a hash or topic) is refused whole, whichever address it names.
 */
export function tokenTransfers(network: DepositNetwork, logs: readonly EvmLog[]): TokenTransfers {
  const tokens = new Map(network.tokens.map((t, i) => [t.address, i]));
  const out: TokenTransfers = { logs: [], tokens: [], recipients: [] };
  for (const log of logs) {
    const index = tokens.get(log.address.toLowerCase());
    if (index === undefined || log.topics.length !== 3 || log.data.length !== 66) continue;
    const { transactionHash: tx, blockHash, topics } = log;
    if (topics[0]!.toLowerCase() !== TRANSFER_TOPIC) continue;
    if (tx.includes(',') || blockHash.includes(',') || topics[1]!.includes(',') || topics[2]!.includes(','))
      throw unavailable(`malformed node answer: a Transfer log of ${tx.slice(0, 80)}`);
    out.logs.push(log);
    out.tokens.push(index);
    out.recipients.push(wordAddress(topics[2]!));
  }
  return out;
}

/**
 * The transfers of more than 0 to `issued` addresses (their rows' ids by address) as the statement's
 * columns, each once however often the node gave it, decided here: each one's deposit id, its credit
 * (bigint: the amount above the token's fee) and how its deposit is inserted, settled
 * ({@link settlementOf}) when its block is final by the service's rule (`finalized`), else pending.
 * One pass, no object per transfer.
 */
export function transferColumns(
  network: DepositNetwork,
  transfers: TokenTransfers,
  issued: ReadonlyMap<string, string>,
  finalized: number,
): TransferColumns {
  const columns = Object.fromEntries(TRANSFER_INPUT.map((c) => [c, []])) as unknown as TransferColumns;
  const seen = new Set<string>();
  transfers.logs.forEach((log, i) => {
    const recipient = transfers.recipients[i]!;
    const addressId = issued.get(recipient);
    if (addressId === undefined) return;
    const amount = BigInt(log.data);
    const tx = log.transactionHash.toLowerCase();
    const key = `${tx}:${log.logIndex}`;
    if (amount === 0n || seen.has(key)) return;
    seen.add(key);
    const index = transfers.tokens[i]!;
    const fee = network.tokens[index]!.feeRaw;
    const credited = amount > fee ? amount - fee : 0n;
    columns.id.push(newId('deposit'));
    columns.txHash.push(tx);
    columns.logIndex.push(log.logIndex);
    columns.block.push(log.blockNumber);
    columns.blockHash.push(log.blockHash.toLowerCase());
    columns.payer.push(wordAddress(log.topics[1]!));
    columns.recipient.push(recipient);
    columns.amount.push(amount);
    columns.credited.push(credited);
    columns.kind.push(log.blockNumber <= finalized ? settlementOf(credited) : 'pending');
    columns.addressId.push(addressId);
    columns.token.push(index);
  });
  return columns;
}
