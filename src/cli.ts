/**
 * Operator CLI: `npm run cli -- <command> [options]`, printing JSON. Runs against DATABASE_URL, or
 * against the embedded stack's database when DATABASE_URL is unset (start it with `npm start` once).
 *
 *   merchant:create --name NAME [--webhook-url URL]
 *   merchant:update --merchant ID [--name N] [--display-name N] [--webhook-url URL] [--webhooks on|off] [--tron-payout-wallet T…]
 *   key:issue   --merchant ID [--label L]
 *   key:rotate  --key ID [--grace-seconds N]
 *   key:revoke  --key ID
 *   wallet:set  --merchant ID --network NET --address ADDR
 *   allowlist:set --merchant ID [--ip CIDR ...]      (no --ip clears it: any address allowed)
 *   operator:token --name NAME
 *   payouts:list [--merchant ID] [--status S] [--network NET] [--batch pb_…] [--first N]
 *   payout:show --payout ID
 *   batch:show  --batch pb_…
 *   relayers                                  (each network's relayer wallet: balance, queue, out of gas)
 *   contracts:deploy --network-file F --network ID --key-file K --fee-wallet ADDR [--owner ADDR] [--sweeper ADDR ...]
 *                                             (deploys the routers and the ForwarderFactory to the network's node, EVM or Tron,
 *                                              verifies them and writes their addresses into F; no database)
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from './app.ts';
import { deployToNetwork } from './chains/deploy-cli.ts';
import { loadNetworkFile } from './chains/networks.ts';
import { ConfigError, loadConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { isAppError } from './errors.ts';
import { createLogger } from './lib/logger.ts';
import type { Payout, PayoutStatus } from './modules/payout/payout.entity.ts';
import { relayerWallets, relayOf } from './relay/relay.status.ts';

const USAGE = `usage: npm run cli -- <command> [options]
commands: merchant:create, merchant:update, key:issue, key:rotate, key:revoke, wallet:set, allowlist:set, operator:token,
          payouts:list, payout:show, batch:show, relayers, contracts:deploy`;

async function main(argv: string[]) {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      'display-name': { type: 'string' },
      merchant: { type: 'string' },
      'webhook-url': { type: 'string' },
      webhooks: { type: 'string' },
      'tron-payout-wallet': { type: 'string' },
      label: { type: 'string' },
      key: { type: 'string' },
      'grace-seconds': { type: 'string' },
      network: { type: 'string' },
      address: { type: 'string' },
      ip: { type: 'string', multiple: true },
      status: { type: 'string' },
      batch: { type: 'string' },
      first: { type: 'string' },
      payout: { type: 'string' },
      'network-file': { type: 'string' },
      'key-file': { type: 'string' },
      'fee-wallet': { type: 'string' },
      owner: { type: 'string' },
      sweeper: { type: 'string', multiple: true },
    },
  });
  const need = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== 'string' || !value)
      throw new ConfigError(`${command}: --${name} is required\n${USAGE}`);
    return value;
  };

  if (command === 'contracts:deploy') {
    const file = need('network-file');
    const written = await deployToNetwork({
      file,
      network: need('network'),
      keyFile: need('key-file'),
      feeWallet: need('fee-wallet'),
      ...(values.owner ? { owner: values.owner } : {}),
      sweepers: values.sweeper ?? [],
      progress: (step) => console.error(step),
    });
    console.log(JSON.stringify(written, null, 2));
    return;
  }

  let config = loadConfig({ LOG_LEVEL: 'error', ...process.env });
  let stopDb: (() => Promise<void>) | undefined;
  if (config.embedded) {
    // The embedded stack's code is loaded only here: a production CLI never imports it.
    const { devSecretsKey, startDevDatabase } = await import('./devstack/database.ts');
    const db = await startDevDatabase(config.dataDir, config.embeddedPgPort);
    stopDb = () => db.server.stop();
    config = {
      ...config,
      databaseUrl: db.url,
      secretsKey: config.secretsKey ?? devSecretsKey(config.dataDir),
    };
  }
  // Embedded: the network file `npm start` wrote for its local chains.
  const networksFile = config.networksFile ?? path.join(config.dataDir, 'networks.json');
  if (!config.networksFile && !existsSync(networksFile)) {
    throw new ConfigError(
      `${networksFile} not found: run npm start once, or set DATABASE_URL and NETWORKS_FILE`,
    );
  }
  const networks = loadNetworkFile(networksFile);
  try {
    await migrate(config.databaseUrl!);
    const app = await createApp({ config, networks, logger: createLogger('error') });
    try {
      const em = app.fork();
      const m = app.services.merchants;
      const result = await (async () => {
        switch (command) {
          case 'merchant:create':
            return m.create(em, { name: need('name'), webhookUrl: values['webhook-url'] ?? null });
          case 'merchant:update':
            return m.update(em, need('merchant'), {
              name: values.name,
              displayName:
                values['display-name'] === undefined ? undefined : values['display-name'].trim() || null,
              webhookUrl: values['webhook-url'],
              webhooksEnabled: values.webhooks === undefined ? undefined : values.webhooks === 'on',
              tronPayoutWallet: values['tron-payout-wallet'],
            });
          case 'key:issue':
            return m.issueKey(em, need('merchant'), values.label);
          case 'key:rotate': {
            const { issued, revoked } = await m.rotateKey(
              em,
              need('key'),
              Number(values['grace-seconds'] ?? 0),
            );
            return { issued, revoked: { id: revoked.id, revokedAt: revoked.revokedAt } };
          }
          case 'key:revoke': {
            const key = await m.revokeKey(em, need('key'));
            return { id: key.id, revokedAt: key.revokedAt };
          }
          case 'wallet:set': {
            const w = await m.setSettlementWallet(em, need('merchant'), need('network'), need('address'));
            return { merchantId: values.merchant, network: w.network, address: w.address };
          }
          case 'allowlist:set':
            return (await m.setAllowlist(em, need('merchant'), values.ip ?? [])).map((a) => a.cidr);
          case 'operator:token':
            return app.services.operators.createToken(em, need('name'));
          case 'payouts:list': {
            const page = await app.services.payouts.list(
              em,
              {
                merchantId: values.merchant ?? null,
                status: (values.status as PayoutStatus | undefined) ?? null,
                network: values.network ?? null,
                batchId: values.batch ?? null,
              },
              Math.min(500, Math.max(1, Number(values.first ?? 50) || 50)),
            );
            return page.nodes.map(payoutSummary);
          }
          case 'payout:show': {
            const payout = await app.services.payouts.get(em, null, need('payout'));
            const relays = await relayOf(
              em,
              payout.batchId ? { batchId: payout.batchId } : { id: payout.id },
            );
            return {
              ...payoutSummary(payout),
              relays: relays.map(({ request, transactions }) => ({
                id: request.id,
                status: request.status,
                txHash: request.txHash,
                lastError: request.lastError,
                transactions: transactions.map((t) => ({
                  hash: t.hash,
                  kind: t.kind,
                  nonce: t.nonce,
                  status: t.status,
                  maxFeePerGas: t.maxFee,
                  createdAt: t.createdAt,
                })),
              })),
            };
          }
          case 'relayers':
            return relayerWallets(app.services.relayer, em);
          case 'batch:show': {
            const { batch, items, status } = await app.services.batches.get(em, null, need('batch'));
            return {
              id: batch.id,
              merchantId: batch.merchant.id,
              externalId: batch.externalId,
              status,
              network: batch.network,
              token: batch.token,
              total: batch.total,
              submissions: batch.submissions,
              deadline: batch.deadline,
              items: items.map(payoutSummary),
            };
          }
          default:
            throw new ConfigError(USAGE);
        }
      })();
      console.log(JSON.stringify(result, null, 2));
    } finally {
      await app.close();
    }
  } finally {
    await stopDb?.();
  }
}

/** What the CLI prints of a payout: the row without the signature, amounts as strings. */
function payoutSummary(p: Payout) {
  return {
    id: p.id,
    merchantId: p.merchant.id,
    externalId: p.externalId,
    batchId: p.batchId,
    batchIndex: p.batchIndex,
    status: p.status,
    failureReason: p.failureReason,
    network: p.network,
    token: p.token,
    amount: p.amount,
    recipient: p.recipient,
    payer: p.payer,
    router: p.router,
    nonce: p.nonce,
    deadline: p.deadline,
    txHash: p.txHash,
    executedBlock: p.executedBlock,
    relayNote: p.relayNote,
    createdAt: p.createdAt,
    authorizedAt: p.authorizedAt,
    settledAt: p.settledAt,
  };
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else if (isAppError(error))
    console.error(JSON.stringify({ error: { code: error.publicCode, message: error.message } }));
  else console.error(error);
  process.exit(1);
});
