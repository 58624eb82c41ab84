import type { GatewayModule } from '../module.ts';
import { PaymentSchema } from './payment.entity.ts';

/** The payments ledger: every on-chain payment a session or deposit was credited from. */
export const ledgerModule: GatewayModule = {
  name: 'ledger',
  entities: [PaymentSchema],
};
