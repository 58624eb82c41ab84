import { unavailable, validation } from '../../errors.ts';
import { ERC20 } from '../evm/abi.ts';
import { mapLimit } from '../evm/util.ts';
import { toEvmAddress } from './address.ts';
import { malformed, type TronHttp } from './http.ts';
import { blockNumber } from './status.ts';

/**
 * TRC-20 `Transfer` events, block by block, only from solidified blocks (section 6.5: a Tron deposit
 * is final when reported, so there is no reorganisation to undo). Everything is read through
 * `/walletsolidity/*`, which does not serve unsolidified blocks at all.
 */

/** Blocks read per call, so one call stays short and the caller can checkpoint. */
export const MAX_SCAN_BLOCKS = 200;
/** Blocks fetched at once. */
export const SCAN_CONCURRENCY = 4;

const TRANSFER_TOPIC = ERC20.getEvent('Transfer')!.topicHash.slice(2);
const WORD_HEX = 64;

export interface Trc20Transfer {
  txId: string;
  /** Position of the event in its transaction's log; (txId, logIndex) is unique. */
  logIndex: number;
  /** Token contract, `0x` form. */
  token: string;
  from: string;
  to: string;
  /** Base units. */
  amount: bigint;
  block: number;
  /** Unix ms of the block. */
  blockTimestamp: number;
}

export interface TransferScan {
  transfers: Trc20Transfer[];
  /** Last block read; `fromBlock - 1` when nothing was solidified yet. Resume at `toBlock + 1`. */
  toBlock: number;
  /** The solidified head when the scan started. */
  solidified: number;
}

interface TxInfo {
  id?: string;
  blockNumber?: number;
  blockTimeStamp?: number;
  log?: { address?: string; topics?: string[]; data?: string }[];
}

/** Tron logs carry 20-byte addresses without the 41 prefix; tolerate either. */
const logAddress = (address: string) => toEvmAddress(address.length === 42 ? address : `41${address}`);

function transfersOf(info: TxInfo, block: number, tokens: ReadonlySet<string>): Trc20Transfer[] {
  const out: Trc20Transfer[] = [];
  (info.log ?? []).forEach((log, logIndex) => {
    const topics = log.topics ?? [];
    if (topics.length !== 3 || topics[0]?.toLowerCase() !== TRANSFER_TOPIC || !log.address) return;
    const token = logAddress(log.address);
    if (!tokens.has(token)) return;
    const data = log.data ?? '';
    if (data.length !== WORD_HEX) return;
    out.push({
      txId: info.id!,
      logIndex,
      token,
      from: toEvmAddress(`41${topics[1]!.slice(-40)}`),
      to: toEvmAddress(`41${topics[2]!.slice(-40)}`),
      amount: BigInt(`0x${data}`),
      block,
      blockTimestamp: info.blockTimeStamp ?? 0,
    });
  });
  return out;
}

/** The infos of one solidified block, after checking the node really has that block. */
async function blockInfos(http: TronHttp, n: number): Promise<TxInfo[] | undefined> {
  const [block, infos] = await Promise.all([
    http.post<{ blockID?: string; transactions?: unknown[] }>('/walletsolidity/getblockbynum', { num: n }),
    http.post<TxInfo[]>('/walletsolidity/gettransactioninfobyblocknum', { num: n }),
  ]);
  // An empty answer for a block is how a lagging node says "I do not have it": not "no transfers".
  if (!block.blockID) return undefined;
  if (!Array.isArray(infos)) throw malformed(http.networkId, 'gettransactioninfobyblocknum', infos);
  const txCount = block.transactions?.length ?? 0;
  if (infos.length > txCount || (txCount > 0 && infos.length === 0)) return undefined;
  if (infos.some((i) => typeof i.id !== 'string' || i.blockNumber !== n)) {
    throw malformed(http.networkId, 'gettransactioninfobyblocknum', infos);
  }
  return infos;
}

/**
 * Transfers of `tokens` (any address spelling) in blocks `fromBlock`..min(`toBlock`, solidified head,
 * `fromBlock + maxBlocks - 1`), each exactly once, in block and log order.
 */
export async function scanTransfers(
  http: TronHttp,
  params: { fromBlock: number; toBlock?: number; tokens: readonly string[]; maxBlocks?: number },
): Promise<TransferScan> {
  const { fromBlock } = params;
  if (!Number.isSafeInteger(fromBlock) || fromBlock < 0) throw validation('fromBlock must be a block number');
  const tokens = new Set(params.tokens.map(toEvmAddress));
  const solidified = await blockNumber(http, true);
  const maxBlocks = Math.min(params.maxBlocks ?? MAX_SCAN_BLOCKS, MAX_SCAN_BLOCKS);
  const last = Math.min(params.toBlock ?? solidified, solidified, fromBlock + maxBlocks - 1);
  if (last < fromBlock) return { transfers: [], toBlock: fromBlock - 1, solidified };

  const numbers = Array.from({ length: last - fromBlock + 1 }, (_, i) => fromBlock + i);
  const perBlock = await mapLimit(numbers, SCAN_CONCURRENCY, (n) => blockInfos(http, n));
  const transfers: Trc20Transfer[] = [];
  let toBlock = fromBlock - 1;
  for (const [i, infos] of perBlock.entries()) {
    if (!infos) break; // stop at the first block the node could not vouch for; resume there next time
    for (const info of infos) transfers.push(...transfersOf(info, numbers[i]!, tokens));
    toBlock = numbers[i]!;
  }
  if (toBlock < fromBlock) {
    throw unavailable(
      `network ${http.networkId}: solidified block ${fromBlock} is not available from the node`,
    );
  }
  return { transfers, toBlock, solidified };
}
