import { ChainBlockSchema, ChainCursorSchema, ChainFollowerSchema } from '../followers/follower.entity.ts';
import { ApiKeySchema, OperatorTokenSchema, RequestNonceSchema } from '../modules/auth/auth.entity.ts';
import { PayoutBatchSchema } from '../modules/batch/batch.entity.ts';
import { DepositAddressSchema, DepositSchema, SweepSchema } from '../modules/deposit/deposit.entity.ts';
import { PaymentSchema } from '../modules/ledger/payment.entity.ts';
import {
  AllowedIpSchema,
  MerchantSchema,
  SettlementWalletSchema,
} from '../modules/merchant/merchant.entity.ts';
import { PayoutSchema, RouterNonceSchema } from '../modules/payout/payout.entity.ts';
import { SessionSchema } from '../modules/session/session.entity.ts';
import {
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEventSchema,
} from '../modules/webhook/webhook.entity.ts';
import { RelayerWalletSchema, RelayRequestSchema, RelayTransactionSchema } from '../relay/relay.entity.ts';

/** Every entity the ORM manages; each module adds its own here. */
export const entities = [
  MerchantSchema,
  SettlementWalletSchema,
  AllowedIpSchema,
  ApiKeySchema,
  OperatorTokenSchema,
  RequestNonceSchema,
  SessionSchema,
  PaymentSchema,
  ChainCursorSchema,
  ChainBlockSchema,
  ChainFollowerSchema,
  WebhookEventSchema,
  WebhookDeliverySchema,
  WebhookAttemptSchema,
  RelayRequestSchema,
  RelayTransactionSchema,
  RelayerWalletSchema,
  PayoutSchema,
  RouterNonceSchema,
  PayoutBatchSchema,
  DepositAddressSchema,
  DepositSchema,
  SweepSchema,
];
