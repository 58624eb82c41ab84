/** The Tron chain adapter: `createTronClient` plus the pure helpers callers validate with. */
export {
  evmToTron,
  isTronAddress,
  toEvmAddress,
  toTronAddress,
  toTronHex,
  tronToEvm,
} from './address.ts';
export { parseSignedTransaction, type SignedTronTransaction, signedFromParts } from './broadcast.ts';
export {
  DEFAULT_FEE_LIMIT_SUN,
  DEFAULT_VALIDITY_MS,
  MAX_VALIDITY_MS,
  type TriggerRequest,
  type TronBuiltTransaction,
} from './build.ts';
export { createTronClient, type TronClient, type TronClientOptions, type TronNetwork } from './client.ts';
export { type DecodedTronTransaction, decodeTronTransaction } from './decode.ts';
export type { TronHttpOptions } from './http.ts';
export { MAX_SCAN_BLOCKS, type TransferScan, type Trc20Transfer } from './scan.ts';
export { normalizeTxSignature, recoverTxSigner, verifyTxSignature } from './signature.ts';
export type { TronTxState } from './status.ts';
