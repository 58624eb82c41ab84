import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../db/timestamps.ts';
import { Payment } from '../ledger/payment.entity.ts';
import { Merchant } from '../merchant/merchant.entity.ts';

/**
 * Standing deposit addresses (D8, D15): issued addresses, the deposits that reached them and the
 * sweeps that move them to the settlement wallets.
 */

/**
 * One issued address: the CREATE2 forwarder of (settlement wallet, player key) on a network. The wallet
 * is pinned when the address is issued: a later settlement-wallet change issues a new address and this
 * one keeps being watched, credited and swept to the wallet it was bound to.
 */
export const DepositAddressSchema = defineEntity({
  name: 'DepositAddress',
  tableName: 'deposit_addresses',
  uniques: [
    { properties: ['merchant', 'network', 'playerId', 'wallet'] },
    // The scanner's lookup: which issued address a transfer's recipient is.
    { properties: ['network', 'address'] },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    network: p.string().length(32),
    playerId: p.string().length(128),
    /** The settlement wallet the forwarder sweeps to, lowercase `0x` form (also on tron). */
    wallet: p.string().length(42),
    /** keccak256(merchant id, player id): the player's part of the CREATE2 salt. */
    playerKey: p.string().length(66),
    /** The deposit address, lowercase `0x` form (also on tron). */
    address: p.string().length(42),
    /** The forwarder's code is on chain (set by the first sweep). */
    deployed: p.boolean().default(false),
    createdAt: createdAt(),
  },
});
export class DepositAddress extends DepositAddressSchema.class {}
DepositAddressSchema.setClass(DepositAddress);

export const DEPOSIT_STATUSES = [
  /** Seen in a block that is not final yet. */
  'pending',
  /** Final and credited: `deposit.confirmed` went out with the row. */
  'credited',
  /** Final, at or below the token's fee: recorded for operators, never credited (D8). */
  'below_fee',
] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/** Who swept a deposit (see `Deposit.sweptBy`). */
export const SWEPT_BY = ['service', 'outside'] as const;

/**
 * A transfer to an issued address: one per ledger row (transaction, log index), which the deposit
 * claims through a unique column, so a transfer is a deposit at most once whatever rescans happen.
 */
export const DepositSchema = defineEntity({
  name: 'Deposit',
  tableName: 'deposits',
  indexes: [
    { properties: ['network', 'status', 'blockNumber'] },
    { properties: ['merchant', 'createdAt'] },
    { properties: ['address'] },
    { properties: ['sweepId'] },
  ],
  properties: {
    id: p.string().length(40).primary(),
    payment: () => p.oneToOne(Payment).owner().unique().deleteRule('restrict'),
    address: () => p.manyToOne(DepositAddress).deleteRule('restrict'),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    network: p.string().length(32),
    playerId: p.string().length(128),
    token: p.string().length(16),
    /** Token contract, lowercase `0x` form. */
    tokenAddress: p.string().length(42),
    decimals: p.integer(),
    amountRaw: p.decimal('string').precision(78).scale(0),
    feeRaw: p.decimal('string').precision(78).scale(0),
    creditedRaw: p.decimal('string').precision(78).scale(0),
    txHash: p.string().length(66),
    logIndex: p.integer(),
    blockNumber: p.bigint('number'),
    status: p.enum(DEPOSIT_STATUSES).default('pending'),
    creditedAt: p.datetime().nullable(),
    /** The sweep that carries it (null: not swept yet, or its sweep failed and it waits for the next). */
    sweepId: p.string().length(40).nullable(),
    sweptAt: p.datetime().nullable(),
    /**
     * Who moved it out of the forwarder: `service` (its sweep), or `outside` (the forwarder was found
     * empty, emptied by `ForwarderFactory.sweep` outside the service: the merchant's own way out, which
     * pays only to the settlement wallet). Null until swept.
     */
    sweptBy: p.enum(SWEPT_BY).nullable(),
    /** Guards transitions (deposit.transition.ts): a change computed from another version writes nothing. */
    version: p.integer().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class Deposit extends DepositSchema.class {}
DepositSchema.setClass(Deposit);

export const SWEEP_STATUSES = [
  /** Its relay is queued or in flight. */
  'queued',
  /** The transaction is in a block; outcomes recorded, not final yet. */
  'mined',
  /** Final: swept forwarders' deposits are `swept`, failed ones back in the pool. */
  'done',
  /** The relay was given up; its deposits went back to the pool for the next sweep. */
  'failed',
] as const;
export type SweepStatus = (typeof SWEEP_STATUSES)[number];

/** What one forwarder's sweep did, from the factory's `Swept` / `SweepFailed` events. */
export interface SweepOutcome {
  address: string;
  token: string;
  /** Base units moved to the settlement wallet (0 when nothing moved). */
  amountRaw: string;
  /** Base units moved to the fee wallet. */
  feeRaw: string;
  /** Revert data of a failed sweep. */
  error?: string;
}

/** One `sweepMany` transaction of a network, relayed by the transaction submitter (kind `sweep`). */
export const SweepSchema = defineEntity({
  name: 'Sweep',
  tableName: 'sweeps',
  indexes: [{ properties: ['network', 'status'] }],
  properties: {
    id: p.string().length(40).primary(),
    network: p.string().length(32),
    status: p.enum(SWEEP_STATUSES).default('queued'),
    /** Forwarders in the call. */
    items: p.integer(),
    txHash: p.string().length(66).nullable(),
    minedBlock: p.bigint('number').nullable(),
    outcomes: p.json<SweepOutcome[]>().nullable(),
    lastError: p.text().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class Sweep extends SweepSchema.class {}
SweepSchema.setClass(Sweep);
