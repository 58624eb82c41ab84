import type { GraphQLSchema } from 'graphql';
import { ChainClients } from './chains/clients.ts';
import type { NetworkFile } from './chains/networks.ts';
import { NetworkRegistry } from './chains/registry.ts';
import type { Config } from './config.ts';
import { createOrm, type EntityManager, type Orm } from './db/orm.ts';
import { PubSub } from './db/pubsub.ts';
import { SqlPool } from './db/sql.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { ApprovalService } from './modules/approval/approval.service.ts';
import { Authenticator } from './modules/auth/authenticator.ts';
import { NonceStore } from './modules/auth/nonce-store.ts';
import { OperatorService } from './modules/auth/operator.service.ts';
import { BalanceService } from './modules/balance/balance.service.ts';
import { BatchService } from './modules/batch/batch.service.ts';
import { DepositService } from './modules/deposit/deposit.service.ts';
import { HostedService } from './modules/hosted/hosted.service.ts';
import { entities, modules, routes, schema } from './modules/index.ts';
import { MerchantService } from './modules/merchant/merchant.service.ts';
import { PayoutChains } from './modules/payout/payout.chain.ts';
import { PayoutService } from './modules/payout/payout.service.ts';
import { SessionChains } from './modules/session/session.chain.ts';
import { SessionService } from './modules/session/session.service.ts';
import { StrayPaymentService } from './modules/stray/stray.service.ts';
import { WebhookService } from './modules/webhook/webhook.service.ts';
import type { RelayKind } from './relay/relay.entity.ts';
import { Relayer } from './relay/relayer.ts';
import { RestAdapter } from './rest/adapter.ts';
import type { Services } from './services.ts';

/** The composition root: everything a process needs, built once and passed explicitly. */
export interface App {
  config: Config;
  logger: Logger;
  orm: Orm;
  schema: GraphQLSchema;
  rest: RestAdapter;
  services: Services;
  nonces: NonceStore;
  /** Publish/subscribe between processes over PostgreSQL LISTEN/NOTIFY. */
  pubsub: PubSub;
  /** What `GET /metrics` reports. */
  metrics: Metrics;
  /** A fresh EntityManager for one request or job; the global one is never used. */
  fork(): EntityManager;
  close(): Promise<void>;
}

export async function createApp(options: {
  config: Config;
  networks: NetworkFile;
  logger?: Logger;
}): Promise<App> {
  const { config } = options;
  if (!config.databaseUrl) throw new Error('createApp needs a database URL');
  if (!config.secretsKey) throw new Error('createApp needs SECRETS_KEY');
  const logger = options.logger ?? createLogger(config.logLevel);
  const orm = await createOrm(config.databaseUrl, {
    entities,
    statementTimeoutMs: config.dbStatementTimeoutMs,
  });
  const sql = new SqlPool(config.databaseUrl);
  const nonces = new NonceStore(sql);
  const networks = new NetworkRegistry(options.networks);
  const authenticator = new Authenticator({
    secretsKey: config.secretsKey,
    nonces,
    fork: () => orm.em.fork(),
  });
  const pubsub = new PubSub({ databaseUrl: config.databaseUrl, logger });
  const chainClients = new ChainClients(logger);
  const sessionChains = new SessionChains(networks, chainClients);
  const payoutChains = new PayoutChains(networks, chainClients);
  const merchants = new MerchantService({
    secretsKey: config.secretsKey,
    networks,
    onCredentialsChanged: (merchantId) => authenticator.forgetMerchant(merchantId),
    webhookAllowPrivate: config.webhookAllowPrivate,
  });
  const fork = () => orm.em.fork();
  const relayer = new Relayer({
    networks,
    clients: chainClients,
    logger,
    fork,
    databaseUrl: config.databaseUrl,
  });
  const sessions = new SessionService({ config, chains: sessionChains, merchants, sql });
  const services: Services = {
    config,
    logger,
    networks,
    authenticator,
    merchants,
    operators: new OperatorService({ logger }),
    webhooks: new WebhookService({
      secretsKey: config.secretsKey,
      allowPrivate: config.webhookAllowPrivate,
      logger,
      pubsub,
    }),
    pubsub,
    chainClients,
    sessionChains,
    payoutChains,
    payouts: new PayoutService({ chains: payoutChains }),
    batches: new BatchService({ chains: payoutChains }),
    approvals: new ApprovalService({ chains: payoutChains, clients: chainClients }),
    relayer,
    balances: new BalanceService({ networks, clients: chainClients, sql }),
    deposits: new DepositService({ networks }),
    sessions,
    strayPayments: new StrayPaymentService({ chains: sessionChains }),
    hosted: new HostedService({ config, sessions }),
    nonces,
  };
  // The relay requests each module submits are handled by that module.
  for (const module of modules)
    for (const [kind, handler] of Object.entries(module.relayHandlers?.({ services, fork }) ?? {}))
      relayer.register(kind as RelayKind, handler);
  return {
    config,
    logger,
    orm,
    schema,
    rest: new RestAdapter(schema, routes),
    services,
    nonces,
    pubsub,
    metrics: createMetrics({ fork: () => orm.em.fork() }),
    fork: () => orm.em.fork(),
    async close() {
      await relayer.close();
      await pubsub.close();
      await sql.close();
      await orm.close(true);
    },
  };
}
