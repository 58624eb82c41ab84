import type { ChainClients } from './chains/clients.ts';
import type { NetworkRegistry } from './chains/registry.ts';
import type { Config } from './config.ts';
import type { PubSub } from './db/pubsub.ts';
import type { Logger } from './lib/logger.ts';
import type { ApprovalService } from './modules/approval/approval.service.ts';
import type { Authenticator } from './modules/auth/authenticator.ts';
import type { NonceStore } from './modules/auth/nonce-store.ts';
import type { OperatorService } from './modules/auth/operator.service.ts';
import type { BalanceService } from './modules/balance/balance.service.ts';
import type { BatchService } from './modules/batch/batch.service.ts';
import type { DepositService } from './modules/deposit/deposit.service.ts';
import type { HostedService } from './modules/hosted/hosted.service.ts';
import type { MerchantService } from './modules/merchant/merchant.service.ts';
import type { PayoutChains } from './modules/payout/payout.chain.ts';
import type { PayoutService } from './modules/payout/payout.service.ts';
import type { SessionChains } from './modules/session/session.chain.ts';
import type { SessionService } from './modules/session/session.service.ts';
import type { StrayPaymentService } from './modules/stray/stray.service.ts';
import type { WebhookService } from './modules/webhook/webhook.service.ts';
import type { Relayer } from './relay/relayer.ts';

/** Everything resolvers and daemons call, built once by the composition root (app.ts). */
export interface Services {
  config: Config;
  logger: Logger;
  networks: NetworkRegistry;
  authenticator: Authenticator;
  merchants: MerchantService;
  operators: OperatorService;
  /** Webhook deliveries: the delivery task, operator queries, resend and live updates. */
  webhooks: WebhookService;
  /** Deposit sessions (step machine) and the chains they run on. */
  sessions: SessionService;
  sessionChains: SessionChains;
  /** Router payments no session claimed by itself: operators list, attach and mark them refunded. */
  strayPayments: StrayPaymentService;
  /** Hosted payment links: create, and token-scoped step/status (D12). */
  hosted: HostedService;
  /** Payout wallets, routers and tokens per merchant and network (approvals, payouts, batches). */
  payoutChains: PayoutChains;
  /** Single payouts: create, authorize, read (the relay and settlement are daemons'). */
  payouts: PayoutService;
  /** Batch payouts: create, authorize, read. */
  batches: BatchService;
  /** Approvals of the payout routers: build, broadcast, status. */
  approvals: ApprovalService;
  /** The transaction submitter: relayer wallets and the handlers of what they relay. */
  relayer: Relayer;
  /** The settlement wallets' token balances (GET /v1/balance). */
  balances: BalanceService;
  /** Standing deposit addresses (POST /v1/wallet/address), their deposits and sweeps. */
  deposits: DepositService;
  /** Publish/subscribe between processes (GraphQL subscriptions, cache invalidation). */
  pubsub: PubSub;
  /** One EVM client per network, shared by requests, followers and jobs. */
  chainClients: ChainClients;
  /** Request nonces of the replay window (pruned by a periodic job). */
  nonces: NonceStore;
}
