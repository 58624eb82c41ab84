import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../db/timestamps.ts';

/** Who asked for a relay; each kind registers a {@link RelayHandler} (src/relay/types.ts). */
export const RELAY_KINDS = ['payout', 'batch', 'sweep', 'test'] as const;
export type RelayKind = (typeof RELAY_KINDS)[number];

/**
 * Where a relay request stands:
 * - `queued`: wanted, no transaction of it broadcast yet (or waiting to be re-sent with a new nonce);
 * - `submitted`: a signed transaction of it is out (possibly replaced since), not mined yet;
 * - `mined`: one of its transactions is in a block (it may still leave the chain in a reorganisation);
 * - `done`: its owner needs nothing more (paid, settled, or executed by another transaction);
 * - `abandoned`: given up (deadline passed, terminal revert); its nonce is still driven to a mined
 *   transaction (a cheap filler) so that no later nonce of the wallet waits behind a gap.
 */
export const RELAY_STATUSES = ['queued', 'submitted', 'mined', 'done', 'abandoned'] as const;
export type RelayStatus = (typeof RELAY_STATUSES)[number];

/**
 * One contract call the service wants on chain, paid for by the network's relayer hot wallet. It is
 * written in the transaction of the business change that wants it (a payout authorized), unique per
 * (kind, subject), so asking twice is asking once. The submitter turns it into signed transactions.
 */
export const RelayRequestSchema = defineEntity({
  name: 'RelayRequest',
  tableName: 'relay_requests',
  uniques: [
    { properties: ['kind', 'subjectId'] },
    // A nonce of the network's relayer wallet belongs to at most one request at a time.
    {
      name: 'relay_requests_network_nonce_unique',
      expression:
        'create unique index "relay_requests_network_nonce_unique" on "relay_requests" ("network", "nonce") where "nonce" is not null',
    },
  ],
  indexes: [{ properties: ['network', 'status'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    network: p.string().length(32),
    kind: p.enum(RELAY_KINDS),
    /** The payout, batch or deposit address the call is for. */
    subjectId: p.string().length(64),
    /** Contract called: `0x` (on `tron`, the 20-byte form). */
    to: p.string().length(42),
    /** Calldata, `0x` hex. */
    data: p.text(),
    /** Unix seconds after which the call can no longer succeed (a router deadline); null: none. */
    deadline: p.bigint('number').nullable(),
    status: p.enum(RELAY_STATUSES).default('queued'),
    /** The transaction that is mined, else the latest broadcast one. */
    txHash: p.string().length(66).nullable(),
    /** Why it was abandoned, or the last error while relaying (operators). */
    lastError: p.text().nullable(),
    /** The wallet nonce its transactions use (EVM), once assigned; null while it has none. */
    nonce: p.bigint('number').nullable(),
    /** Sending attempts that ended in a retry (backoff). */
    attempts: p.integer().default(0),
    /**
     * Until when a sender holds it in its pipelined send (evm-send.ts): other senders leave it alone
     * meanwhile. Only a way to share the queue; one left by a crashed sender expires (evm-watch.ts).
     */
    claimedUntil: p.datetime().nullable(),
    /** The claiming sender's session token (sender-session.ts): a claim nobody alive holds is free. */
    claimedBy: p.integer().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class RelayRequest extends RelayRequestSchema.class {}
RelayRequestSchema.setClass(RelayRequest);

/** What a relay transaction is: the request's call, or a 0-value self-transfer filling its nonce. */
export const RELAY_TX_KINDS = ['call', 'filler'] as const;
/**
 * - `signed`: stored, not known to be broadcast yet (a crash here re-broadcasts these very bytes);
 * - `sent`: broadcast; `mined`: in a block; `replaced`: a later transaction of the same nonce won or
 *   was sent in its place; `dropped`: its nonce was taken by another transaction, or (Tron) it expired.
 */
export const RELAY_TX_STATUSES = ['signed', 'sent', 'mined', 'replaced', 'dropped'] as const;
export type RelayTxStatus = (typeof RELAY_TX_STATUSES)[number];

/**
 * Every transaction the submitter signed, written before it is broadcast: the first one of a request
 * and each replacement (same nonce, higher fees), so whichever is mined is known and nothing is ever
 * signed twice for the same nonce by accident.
 */
export const RelayTransactionSchema = defineEntity({
  name: 'RelayTransaction',
  tableName: 'relay_transactions',
  indexes: [{ properties: ['request'] }, { properties: ['network', 'wallet', 'nonce'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    request: () => p.manyToOne(RelayRequest).deleteRule('cascade'),
    network: p.string().length(32),
    /** The relayer wallet (`0x`). */
    wallet: p.string().length(42),
    /** EVM nonce; null on Tron. */
    nonce: p.bigint('number').nullable(),
    kind: p.enum(RELAY_TX_KINDS).default('call'),
    /** Lowercase `0x` hash (Tron: the transaction id with `0x`). */
    hash: p.string().length(66).unique(),
    /** EVM: the signed raw transaction; Tron: `raw_data_hex` followed by `:` and the signature. */
    raw: p.text(),
    gasLimit: p.decimal('string').precision(78).scale(0).nullable(),
    /** Legacy gas price, or EIP-1559 max fee per gas (wei). */
    maxFee: p.decimal('string').precision(78).scale(0).nullable(),
    /** EIP-1559 tip (wei); null for a legacy transaction. */
    priorityFee: p.decimal('string').precision(78).scale(0).nullable(),
    /** Tron: unix ms after which the network refuses it. */
    expiration: p.bigint('number').nullable(),
    status: p.enum(RELAY_TX_STATUSES).default('signed'),
    minedBlock: p.bigint('number').nullable(),
    createdAt: createdAt(),
    sentAt: p.datetime().nullable(),
  },
});
export class RelayTransaction extends RelayTransactionSchema.class {}
RelayTransactionSchema.setClass(RelayTransaction);

/**
 * The relayer hot wallet of a network: the row locked to take a nonce, so any number of worker
 * processes submit without a clash; out-of-gas episodes are recorded here for operators.
 */
export const RelayerWalletSchema = defineEntity({
  name: 'RelayerWallet',
  tableName: 'relayer_wallets',
  properties: {
    network: p.string().length(32).primary(),
    address: p.string().length(42).primary(),
    /** The next nonce to give out (EVM). */
    nextNonce: p.bigint('number').default(0),
    /** Since when the wallet cannot pay for gas; null when it can. */
    outOfGasSince: p.datetime().nullable(),
    lastError: p.text().nullable(),
    updatedAt: updatedAt(),
  },
});
export class RelayerWallet extends RelayerWalletSchema.class {}
RelayerWalletSchema.setClass(RelayerWallet);
