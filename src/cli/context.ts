import type { App } from '../app.ts';
import type { NetworkFile } from '../chains/networks.ts';
import type { Config } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import type { Services } from '../services.ts';

/**
 * What an operator CLI command runs on. A command that names the services it calls gets the ORM and
 * only those, each built as the composition root (src/app.ts) builds it: nothing else is imported, no
 * GraphQL schema is built, no pool or LISTEN connection is opened beyond the ORM's, and no chain is
 * asked anything unless the command itself reads one. A command that names none gets the whole app.
 */

/** The services a CLI command may name. */
export type CliServiceName = 'merchants' | 'operators' | 'payouts' | 'batches' | 'relayer';

/** The part of the app a command sees. */
export interface CliApp {
  config: Config;
  logger: Logger;
  /** Only the services the command named are there (asking for another is an error saying so). */
  services: Services;
  fork(): EntityManager;
  close(): Promise<void>;
}

interface Base {
  config: Config;
  networks: NetworkFile;
  logger: Logger;
  fork(): EntityManager;
}

/** One builder per service: the same constructor arguments as src/app.ts, for a process with no API. */
const BUILD: { [K in CliServiceName]: (base: Base) => Promise<Services[K]> } = {
  merchants: async ({ config, networks }) => {
    const [{ MerchantService }, { gatewayWebhookRule }, registry] = await Promise.all([
      import('../modules/merchant/merchant.service.ts'),
      import('../modules/merchant/webhook-rule.ts'),
      registryOf(networks),
    ]);
    return new MerchantService({
      secretsKey: config.secretsKey!,
      networks: registry,
      // No authentication cache here; API processes hear of the change through the database.
      onCredentialsChanged: () => {},
      // The gateway's rule, as it recorded it; this process's own only before any gateway started.
      webhookAllowPrivate: (em) => gatewayWebhookRule(em, config.webhookAllowPrivate),
    });
  },
  operators: async () => new (await import('../modules/auth/operator.service.ts')).OperatorService(),
  payouts: async (base) =>
    new (await import('../modules/payout/payout.service.ts')).PayoutService({
      chains: await payoutChains(base),
    }),
  batches: async (base) =>
    new (await import('../modules/batch/batch.service.ts')).BatchService({
      chains: await payoutChains(base),
    }),
  relayer: async (base) => {
    const [{ Relayer }, networks, clients] = await Promise.all([
      import('../relay/relayer.ts'),
      registryOf(base.networks),
      clientsOf(base.logger),
    ]);
    return new Relayer({ networks, clients, logger: base.logger, fork: base.fork });
  },
};

async function registryOf(networks: NetworkFile) {
  return new (await import('../chains/registry.ts')).NetworkRegistry(networks);
}
async function clientsOf(logger: Logger) {
  return new (await import('../chains/clients.ts')).ChainClients(logger);
}
async function payoutChains(base: Base) {
  const [{ PayoutChains }, registry, clients] = await Promise.all([
    import('../modules/payout/payout.chain.ts'),
    registryOf(base.networks),
    clientsOf(base.logger),
  ]);
  return new PayoutChains(registry, clients);
}

/**
 * The context of one command: with `services`, the ORM over every entity and those services; without,
 * the whole app (src/app.ts), so a command added to the table without naming them still runs.
 */
export async function cliContext(options: {
  config: Config;
  networks: NetworkFile;
  logger: Logger;
  services?: readonly CliServiceName[];
}): Promise<CliApp | App> {
  const { config, networks, logger } = options;
  if (!options.services) {
    const { createApp } = await import('../app.ts');
    return createApp({ config, networks, logger });
  }
  const [{ createOrm }, { entityList }] = await Promise.all([
    import('../db/orm.ts'),
    import('../modules/entities.ts'),
  ]);
  const orm = await createOrm(config.databaseUrl!, {
    entities: entityList,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    poolMax: 2,
  });
  const fork = () => orm.em.fork();
  const base = { config, networks, logger, fork };
  const built = await Promise.all(options.services.map(async (name) => [name, await BUILD[name](base)]));
  const present = Object.fromEntries(built) as Partial<Services>;
  const services = new Proxy(present, {
    get(target, name) {
      if (typeof name === 'string' && !(name in target))
        throw new Error(
          `this command uses services.${name}: add '${name}' to its services in src/cli/commands.ts`,
        );
      return target[name as keyof Services];
    },
  }) as Services;
  return {
    config,
    logger,
    services,
    fork,
    close: () => orm.close(true),
  };
}
