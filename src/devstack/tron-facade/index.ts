/**
 * The Tron full-node HTTP facade: a DEVELOPMENT AND TEST FIXTURE, NOT A TRON NODE.
 *
 * No Tron node can run here, so the dev stack's and the tests' `tron` network is this small HTTP
 * server in front of an anvil chain started with Tron's chain id. It speaks the subset of java-tron's
 * `/wallet/*` and `/walletsolidity/*` API the adapter (and tronweb, for those calls) uses, with Tron's
 * semantics where they matter to the service: real protobuf `raw_data` and txIDs, TaPoS references,
 * expiration, secp256k1 signatures that must recover to the owner, a solidified head that lags the head,
 * Tron-shaped blocks, receipts, logs and error bodies.
 *
 * What it fakes: a verified transaction is executed on anvil by impersonating the owner's 0x address
 * (`anvil_impersonateAccount` + `eth_sendTransaction` at gas price zero), not by a TVM; energy and
 * bandwidth are not modelled (EVM gas stands in for energy, the fee is nominal and charged to nobody);
 * only TriggerSmartContract and CreateSmartContract are executed; created contracts get anvil's CREATE
 * address and CREATE2 follows the EVM's 0xff rule, not the TVM's; owner permission only (no multi-sig);
 * transactions sent to anvil directly appear under their EVM hash. docs/tron-facade.md has the full list.
 */
export {
  DEV_BLOCK_TIME_S,
  startTronDevNode,
  TRON_CHAIN_ID,
  type TronDevNode,
  type TronDevNodeOptions,
} from './dev-node.ts';
export {
  DEFAULT_SOLIDIFIED_LAG,
  startTronFacade,
  type TronFacade,
  type TronFacadeOptions,
} from './server.ts';
