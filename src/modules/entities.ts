import { ChainBlockSchema, ChainCursorSchema, ChainFollowerSchema } from '../followers/follower.entity.ts';
import { RelayerWalletSchema, RelayRequestSchema, RelayTransactionSchema } from '../relay/relay.entity.ts';
import { ApprovalBuildSchema } from './approval/approval.entity.ts';
import {
  ApiKeySchema,
  OperatorAuditSchema,
  OperatorTokenSchema,
  RequestNonceSchema,
} from './auth/auth.entity.ts';
import { PayoutBatchSchema } from './batch/batch.entity.ts';
import { DepositAddressSchema, DepositSchema, SweepSchema } from './deposit/deposit.entity.ts';
import { SweepHoldSchema } from './deposit/sweep-hold.ts';
import { PaymentSchema } from './ledger/payment.entity.ts';
import { AllowedIpSchema, MerchantSchema, SettlementWalletSchema } from './merchant/merchant.entity.ts';
import { PayoutSchema, RouterNonceSchema } from './payout/payout.entity.ts';
import { SessionSchema } from './session/session.entity.ts';
import { SessionHistorySchema } from './session/session.history.ts';
import { PaymentResolutionSchema, UnmatchedPaymentSchema } from './stray/stray.entity.ts';
import { WebhookAttemptSchema, WebhookDeliverySchema, WebhookEventSchema } from './webhook/webhook.entity.ts';

/**
 * Every entity the ORM manages, without the modules' GraphQL types, routes and daemons: what a
 * process that only reads and writes rows (the operator CLI) loads. The same set as `entities` in
 * `./index.ts`, the module list, which stays the one place a module is declared;
 * test/platform/modules.test.ts holds the two equal.
 */
export const entityList = [
  MerchantSchema,
  SettlementWalletSchema,
  AllowedIpSchema,
  ApiKeySchema,
  OperatorTokenSchema,
  OperatorAuditSchema,
  RequestNonceSchema,
  ChainCursorSchema,
  ChainBlockSchema,
  ChainFollowerSchema,
  WebhookEventSchema,
  WebhookDeliverySchema,
  WebhookAttemptSchema,
  PaymentSchema,
  SessionSchema,
  SessionHistorySchema,
  PayoutSchema,
  RouterNonceSchema,
  RelayRequestSchema,
  RelayTransactionSchema,
  RelayerWalletSchema,
  PayoutBatchSchema,
  DepositAddressSchema,
  DepositSchema,
  SweepSchema,
  SweepHoldSchema,
  PaymentResolutionSchema,
  UnmatchedPaymentSchema,
  ApprovalBuildSchema,
] as const;
