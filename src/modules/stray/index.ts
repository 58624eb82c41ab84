import type { GatewayModule } from '../module.ts';
import { PaymentResolutionSchema, UnmatchedPaymentSchema } from './stray.entity.ts';
import './stray.graphql.ts';

/**
 * Stray payments: router payments no session claimed by itself (an `order_ref` of no session, a
 * wrong amount, a late payment), listed for operators, who attach one to a session or mark it
 * refunded.
 */
export const strayModule: GatewayModule = {
  name: 'stray',
  entities: [PaymentResolutionSchema, UnmatchedPaymentSchema],
};
