import { defineEntity, p } from '@mikro-orm/core';
import { createdAt } from '../../db/timestamps.ts';

/**
 * An EVM approval as built (section 2.7): broadcast accepts a signed transaction only when it is one
 * of these field for field — the legacy type, the nonce, the gas limit and price included — so the
 * payout wallet's signature cannot be spent on another shape (an EIP-7702 authorization list, an
 * access list, fee fields of the caller's choosing). The calldata is fixed by token, spender and
 * amount, so it is not stored.
 */
export const ApprovalBuildSchema = defineEntity({
  name: 'ApprovalBuild',
  tableName: 'approval_builds',
  indexes: [{ properties: ['merchantId', 'network', 'token', 'spender', 'amountRaw'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchantId: p.string().length(40),
    network: p.string().length(32),
    /** Token contract, lowercase `0x` form. */
    token: p.string().length(42),
    /** The router approved, lowercase `0x` form. */
    spender: p.string().length(42),
    /** The payout wallet, lowercase `0x` form. */
    owner: p.string().length(42),
    /** Base units, exact. */
    amountRaw: p.decimal('string').precision(78).scale(0),
    chainId: p.bigint('number'),
    nonce: p.bigint('number'),
    gas: p.decimal('string').precision(78).scale(0),
    gasPrice: p.decimal('string').precision(78).scale(0),
    createdAt: createdAt(),
  },
});
export class ApprovalBuild extends ApprovalBuildSchema.class {}
ApprovalBuildSchema.setClass(ApprovalBuild);
