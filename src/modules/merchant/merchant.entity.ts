import { defineEntity, p } from '@mikro-orm/core';
import { createdAt, updatedAt } from '../../db/timestamps.ts';

/** A merchant: owns API keys, settlement wallets, sessions and payouts. */
export const MerchantSchema = defineEntity({
  name: 'Merchant',
  tableName: 'merchants',
  properties: {
    id: p.string().length(40).primary(),
    name: p.string().length(200),
    /** What players see on the hosted page (operators set it); unset: `name`. */
    displayName: p.string().length(200).nullable(),
    /** Default webhook target; per-session/payout `callback_url`s override it. */
    webhookUrl: p.string().length(2048).nullable(),
    webhooksEnabled: p.boolean().default(true),
    /** Separate payout wallet on `tron` (the settlement wallet pays out on EVM networks). */
    tronPayoutWallet: p.string().length(64).nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class Merchant extends MerchantSchema.class {}
MerchantSchema.setClass(Merchant);

/** The merchant's settlement wallet on one network: where deposits land and EVM payouts come from. */
export const SettlementWalletSchema = defineEntity({
  name: 'SettlementWallet',
  tableName: 'settlement_wallets',
  uniques: [{ properties: ['merchant', 'network'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    network: p.string().length(32),
    address: p.string().length(64),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class SettlementWallet extends SettlementWalletSchema.class {}
SettlementWalletSchema.setClass(SettlementWallet);

/** One allowlisted address or CIDR range; a merchant with none accepts calls from anywhere. */
export const AllowedIpSchema = defineEntity({
  name: 'AllowedIp',
  tableName: 'merchant_allowed_ips',
  uniques: [{ properties: ['merchant', 'cidr'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    merchant: () => p.manyToOne(Merchant).deleteRule('cascade'),
    cidr: p.string().length(64),
    createdAt: createdAt(),
  },
});
export class AllowedIp extends AllowedIpSchema.class {}
AllowedIpSchema.setClass(AllowedIp);
