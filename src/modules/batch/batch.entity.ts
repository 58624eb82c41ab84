import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../db/timestamps.ts';
import { Merchant } from '../merchant/merchant.entity.ts';

/**
 * A batch payout (section 2.5): one signed `PayoutBatch` order for up to 100 recipients of one token on
 * one network. Its items are payouts (`payouts.batch_id`, `batch_index`), each with its own status and
 * webhook; the batch's status is derived from them on every read and never stored, so it can never be
 * out of step. What the order says is pinned here (payout wallet, router, chain, nonce, deadline).
 */
export const PayoutBatchSchema = defineEntity({
  name: 'PayoutBatch',
  tableName: 'payout_batches',
  uniques: [
    { properties: ['merchant', 'externalId'] },
    { properties: ['network', 'router', 'payer', 'nonce'] },
  ],
  indexes: [{ properties: ['merchant', 'createdAt'] }, { properties: ['network', 'batchKey'] }],
  properties: {
    id: p.string().length(40).primary(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    externalId: p.string().length(128).nullable(),
    network: p.string().length(32),
    token: p.string().length(16),
    tokenAddress: p.string().length(42),
    /** Sum of the items, canonical decimal whole units. */
    total: p.string().length(100),
    totalRaw: p.decimal('string').precision(78).scale(0),
    itemCount: p.integer(),
    callbackUrl: p.string().length(2048).nullable(),
    payer: p.string().length(42),
    /** The BatchPayoutRouter (`domain.verifyingContract`). */
    router: p.string().length(42),
    chainId: p.bigint('number'),
    nonce: p.decimal('string').precision(78).scale(0),
    /** keccak256(abi.encode(payer, nonce)): what the router's item events are indexed by. */
    batchKey: p.string().length(66),
    deadline: p.bigint('number'),
    /** The authorizing signature, normalised; the one relayed (every resubmission too). */
    signature: p.string().length(132).nullable(),
    /** Submissions of the signed batch so far (the router pays only still-unpaid items on each). */
    submissions: p.integer().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    authorizedAt: p.datetime().nullable(),
  },
});
export class PayoutBatch extends PayoutBatchSchema.class {}
PayoutBatchSchema.setClass(PayoutBatch);
