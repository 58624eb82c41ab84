import { defineEntity, p } from '@mikro-orm/core';

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
  uniques: [{ properties: ['kind', 'subjectId'] }],
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
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export class RelayRequest extends RelayRequestSchema.class {}
RelayRequestSchema.setClass(RelayRequest);
