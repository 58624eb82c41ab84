/** The EVM chain adapter: `createEvmClient` plus the pure helpers callers validate with. */
export { decodeApprove, encodeApprove } from './abi.ts';
export type { BlockRef } from './blocks.ts';
export { createEvmClient, type EvmClient, type EvmClientOptions, type EvmNetwork } from './client.ts';
export { logMatches, unionFilter } from './logs-filter.ts';
export type { EvmLog, LogFilter, LogRange } from './logs-parse.ts';
export { wordAddress } from './logs-parse.ts';
export type { LogChunk, LogScanOptions } from './logs-scan.ts';
export type { BlockTag, ReadCall, ReadResult } from './reads.ts';
export type { EndpointHealth } from './rpc/endpoints.ts';
export type { RpcCall, RpcOutcome, RpcTransport, RpcTransportOptions } from './rpc/transport.ts';
export type { Eip1559Tx, FeeMode, LegacyTx, TxRequest, UnsignedTx } from './tx-build.ts';
export { type DecodedTransaction, decodeSignedTransaction } from './tx-decode.ts';
export type { TxInfo, TxReceipt } from './tx-status.ts';
