import type { GatewayModule } from '../module.ts';
import { AllowedIpSchema, MerchantSchema, SettlementWalletSchema } from './merchant.entity.ts';
import './merchant.graphql.ts';

/** Merchants: their settings, settlement wallets and IP allowlists. */
export const merchantModule: GatewayModule = {
  name: 'merchant',
  entities: [MerchantSchema, SettlementWalletSchema, AllowedIpSchema],
};
