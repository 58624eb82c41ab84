import { hostname, userInfo } from 'node:os';
import type { ParseArgsOptionsConfig } from 'node:util';
import { ConfigError } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Payout, PayoutStatus } from '../modules/payout/payout.entity.ts';
import type { CliApp, CliServiceName } from './context.ts';

/**
 * The operator CLI's commands, as a table: each names its options, says whether it needs the
 * database, names the services it calls, and runs the same service operations GraphQL runs. Usage
 * and help are generated from it. Nothing heavy is imported here: a command loads what it runs
 * (src/cli/context.ts builds only the services it names), so `help` answers at once.
 */

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What a command runs with: its parsed options, and (with a database) the app and an EntityManager. */
export interface CommandInput {
  values: Values;
  /** The value of a required option; a missing one stops with the usage. */
  need(option: string): string;
  app: CliApp;
  em: EntityManager;
}

export interface Command {
  name: string;
  /** What it does, in one line (`help`). */
  summary?: string;
  /** Its options as usage shows them. */
  synopsis: string;
  /** One more line of usage, when the options do not say it all. */
  note?: string;
  options: ParseArgsOptionsConfig;
  /** The services it calls, built alone (src/cli/context.ts); unset: the whole app is built. */
  services?: readonly CliServiceName[];
  run(input: CommandInput): Promise<unknown>;
}

/** A command that runs without the service's database: it gets its options only. */
export interface StandaloneCommand extends Omit<Command, 'run'> {
  standalone: true;
  run(input: Pick<CommandInput, 'values' | 'need'>): Promise<unknown>;
}

/**
 * Table entries, typed by what they need. A command changes something unless it says `reads`, and
 * then it is written to the operators' audit log like a GraphQL mutation (src/modules/auth/audit.ts),
 * by the OS user and host that ran it.
 */
const command = (c: Command & { reads?: true }): Command =>
  c.reads
    ? c
    : {
        ...c,
        // The audit log is written by the operator service: a command that names its services gets it too.
        ...(c.services ? { services: [...new Set([...c.services, 'operators' as const])] } : {}),
        run: (input) =>
          input.app.services.operators.audit.run(
            input.em,
            { operator: cliOperator(), operation: c.name, arguments: input.values, clientIp: undefined },
            undefined,
            () => c.run(input),
          ),
      };

/** Who the audit log names for a CLI command. */
function cliOperator() {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (some containers): the host still says where.
  }
  return { operatorId: null, name: `cli: ${user}@${hostname()}`.slice(0, 200) };
}
const standalone = (c: Omit<StandaloneCommand, 'standalone'>): StandaloneCommand => ({
  ...c,
  standalone: true,
});

const text = { type: 'string' } as const;
const many = { type: 'string', multiple: true } as const;

export const COMMANDS: readonly (Command | StandaloneCommand)[] = [
  command({
    name: 'merchant:create',
    summary: 'create a merchant',
    services: ['merchants'],
    synopsis: '--name NAME [--webhook-url URL]',
    options: { name: text, 'webhook-url': text },
    run: ({ app, em, values, need }) =>
      app.services.merchants.create(em, {
        name: need('name'),
        webhookUrl: (values['webhook-url'] as string | undefined) ?? null,
      }),
  }),
  command({
    name: 'merchant:update',
    summary: "change a merchant's name, display name, webhook URL or switch, Tron payout wallet",
    services: ['merchants'],
    synopsis:
      '--merchant ID [--name N] [--display-name N] [--webhook-url URL] [--webhooks on|off] [--tron-payout-wallet T…]',
    options: {
      merchant: text,
      name: text,
      'display-name': text,
      'webhook-url': text,
      webhooks: text,
      'tron-payout-wallet': text,
    },
    run: ({ app, em, values, need }) => {
      const display = values['display-name'] as string | undefined;
      return app.services.merchants.update(em, need('merchant'), {
        name: values.name as string | undefined,
        displayName: display === undefined ? undefined : display.trim() || null,
        webhookUrl: values['webhook-url'] as string | undefined,
        webhooksEnabled: values.webhooks === undefined ? undefined : values.webhooks === 'on',
        tronPayoutWallet: values['tron-payout-wallet'] as string | undefined,
      });
    },
  }),
  command({
    name: 'key:issue',
    summary: 'issue an API key (its secret is printed once)',
    services: ['merchants'],
    synopsis: '--merchant ID [--label L]',
    options: { merchant: text, label: text },
    run: ({ app, em, values, need }) =>
      app.services.merchants.issueKey(em, need('merchant'), values.label as string | undefined),
  }),
  command({
    name: 'key:rotate',
    summary: 'issue a new key and revoke the old one, after a grace period',
    services: ['merchants'],
    synopsis: '--key ID [--grace-seconds N]',
    options: { key: text, 'grace-seconds': text },
    run: async ({ app, em, values, need }) => {
      const grace = Number(values['grace-seconds'] ?? 0);
      const { issued, revoked } = await app.services.merchants.rotateKey(em, need('key'), grace);
      return { issued, revoked: { id: revoked.id, revokedAt: revoked.revokedAt } };
    },
  }),
  command({
    name: 'key:revoke',
    summary: 'revoke an API key now',
    services: ['merchants'],
    synopsis: '--key ID',
    options: { key: text },
    run: async ({ app, em, need }) => {
      const key = await app.services.merchants.revokeKey(em, need('key'));
      return { id: key.id, revokedAt: key.revokedAt };
    },
  }),
  command({
    name: 'wallet:set',
    summary: "set a merchant's settlement wallet on a network",
    services: ['merchants'],
    synopsis: '--merchant ID --network NET --address ADDR',
    options: { merchant: text, network: text, address: text },
    run: async ({ app, em, need }) => {
      const merchantId = need('merchant');
      const w = await app.services.merchants.setSettlementWallet(
        em,
        merchantId,
        need('network'),
        need('address'),
      );
      return { merchantId, network: w.network, address: w.address };
    },
  }),
  command({
    name: 'allowlist:set',
    summary: "replace a merchant's IP allowlist",
    services: ['merchants'],
    synopsis: '--merchant ID [--ip CIDR ...]',
    note: 'no --ip clears it: any address allowed',
    options: { merchant: text, ip: many },
    run: async ({ app, em, values, need }) =>
      (await app.services.merchants.setAllowlist(em, need('merchant'), (values.ip as string[]) ?? [])).map(
        (a) => a.cidr,
      ),
  }),
  command({
    name: 'operator:token',
    summary: 'create an operator token (GraphQL, /metrics, the console)',
    services: ['operators'],
    synopsis: '--name NAME [--scope admin|read] [--expires-in 30d|12h|45m]',
    note: 'admin unless --scope read; the token is printed once',
    options: { name: text, scope: text, 'expires-in': text },
    run: ({ app, em, values, need }) => {
      const scope = (values.scope as string | undefined) ?? 'admin';
      if (scope !== 'admin' && scope !== 'read')
        throw new ConfigError(`operator:token: --scope must be admin or read\n${usage()}`);
      const expiresIn = values['expires-in'] as string | undefined;
      return app.services.operators.createToken(em, {
        name: need('name'),
        scopes: [scope],
        expiresAt: expiresIn === undefined ? null : new Date(Date.now() + durationMs(expiresIn)),
      });
    },
  }),
  command({
    name: 'operator:list',
    summary: 'list operator tokens',
    services: ['operators'],
    reads: true,
    synopsis: '',
    note: 'every operator token: name, scopes, created, last used, expiry, revoked',
    options: {},
    run: async ({ app, em }) => {
      // Loaded here, not at the top: `help` and `--help` load no ORM entity.
      const { tokenActive } = await import('../modules/auth/operator.service.ts');
      return (await app.services.operators.list(em)).map((o) => ({
        id: o.id,
        name: o.name,
        scopes: o.scopes,
        active: tokenActive(o),
        createdAt: o.createdAt,
        lastUsedAt: o.lastUsedAt,
        expiresAt: o.expiresAt,
        revokedAt: o.revokedAt,
      }));
    },
  }),
  command({
    name: 'operator:revoke',
    summary: 'revoke an operator token',
    services: ['operators'],
    synopsis: '--id opt_…',
    note: 'refused from its next request on; its open WebSockets are closed',
    options: { id: text },
    run: async ({ app, em, need }) => {
      const row = await app.services.operators.revokeToken(em, need('id'));
      return { id: row.id, name: row.name, revokedAt: row.revokedAt };
    },
  }),
  command({
    name: 'payouts:list',
    summary: 'list payouts, newest first',
    services: ['payouts'],
    reads: true,
    synopsis: '[--merchant ID] [--status S] [--network NET] [--batch pb_…] [--first N]',
    options: { merchant: text, status: text, network: text, batch: text, first: text },
    run: async ({ app, em, values }) => {
      const page = await app.services.payouts.list(
        em,
        {
          merchantId: (values.merchant as string | undefined) ?? null,
          status: (values.status as PayoutStatus | undefined) ?? null,
          network: (values.network as string | undefined) ?? null,
          batchId: (values.batch as string | undefined) ?? null,
        },
        Math.min(500, Math.max(1, Number(values.first ?? 50) || 50)),
      );
      return page.nodes.map(payoutSummary);
    },
  }),
  command({
    name: 'payout:show',
    summary: 'show a payout with its relays',
    services: ['payouts'],
    reads: true,
    synopsis: '--payout ID',
    note: 'with its relays, every transaction and replacement',
    options: { payout: text },
    run: async ({ app, em, need }) => {
      const payout = await app.services.payouts.get(em, null, need('payout'));
      const { relayOf } = await import('../relay/relay.status.ts');
      const relays = await relayOf(em, payout.batchId ? { batchId: payout.batchId } : { id: payout.id });
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
    },
  }),
  command({
    name: 'batch:show',
    summary: 'show a batch payout and its items',
    services: ['batches'],
    reads: true,
    synopsis: '--batch pb_…',
    options: { batch: text },
    run: async ({ app, em, need }) => {
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
    },
  }),
  command({
    name: 'relayers',
    summary: "show each network's relayer wallet",
    services: ['relayer'],
    reads: true,
    synopsis: '',
    note: "each network's relayer wallet: balance, queue, out of gas",
    options: {},
    run: async ({ app, em }) =>
      (await import('../relay/relay.status.ts')).relayerWallets(app.services.relayer, em),
  }),
  standalone({
    name: 'contracts:deploy',
    summary: "deploy the gateway's contracts to a network and record them in its network file",
    synopsis:
      '--network-file F --network ID --key-file K --fee-wallet ADDR [--owner ADDR] [--sweeper ADDR ...]',
    note: "deploys the routers and the ForwarderFactory to the network's node, EVM or Tron, verifies them and writes their addresses into F; no database",
    options: {
      'network-file': text,
      network: text,
      'key-file': text,
      'fee-wallet': text,
      owner: text,
      sweeper: many,
    },
    run: async ({ values, need }) =>
      (await import('../chains/deploy-cli.ts')).deployToNetwork({
        file: need('network-file'),
        network: need('network'),
        keyFile: need('key-file'),
        feeWallet: need('fee-wallet'),
        ...(values.owner ? { owner: values.owner as string } : {}),
        sweepers: (values.sweeper as string[] | undefined) ?? [],
        progress: (step) => console.error(step),
      }),
  }),
];

/** The usage text, from the table. */
export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => {
    const line = `  ${c.name.padEnd(width)} ${c.synopsis}`.trimEnd();
    return c.note ? `${line}\n  ${' '.repeat(width)} (${c.note})` : line;
  });
  return `usage: npm run cli -- <command> [options]\ncommands:\n${lines.join('\n')}`;
}

/** `help`: every command, one line each. */
export function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary ?? c.synopsis}`);
  return `usage: npm run -s cli -- <command> [options]   (<command> --help for its options)\ncommands:\n${lines.join('\n')}`;
}

/** Whether a command needs SECRETS_KEY: merchant credentials are sealed with it. */
export function needsSecretsKey(c: Command | StandaloneCommand): boolean {
  return !('standalone' in c) && (!c.services || c.services.includes('merchants'));
}

/** `<command> --help`: its usage, what it does and what it needs. */
export function commandHelp(c: Command | StandaloneCommand): string {
  const needs =
    'standalone' in c
      ? 'needs: no database'
      : `needs: DATABASE_URL and NETWORKS_FILE${needsSecretsKey(c) ? " and SECRETS_KEY (the gateway's)" : ''}, ` +
        'or none of them on the embedded stack (with DATA_DIR and EMBEDDED_PG_PORT as npm start had them)';
  return [
    `usage: npm run -s cli -- ${c.name} ${c.synopsis}`.trimEnd(),
    ...(c.summary ? [`  ${c.summary}`] : []),
    ...(c.note ? [`  (${c.note})`] : []),
    `  ${needs}`,
  ].join('\n');
}

export function findCommand(name: string | undefined): Command | StandaloneCommand {
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) throw new ConfigError(usage());
  return command;
}

/** A required option's value, or a ConfigError naming it, with the usage. */
export function needOf(command: string, values: Values) {
  return (option: string): string => {
    const value = values[option];
    if (typeof value !== 'string' || !value)
      throw new ConfigError(`${command}: --${option} is required\n${usage()}`);
    return value;
  };
}

/** `30d`, `12h`, `45m` or `90s` in milliseconds; anything else stops with the usage. */
function durationMs(value: string): number {
  const match = /^(\d{1,6})([dhms])$/.exec(value);
  if (!match || Number(match[1]) === 0)
    throw new ConfigError(`--expires-in: a positive duration like 30d, 12h, 45m or 90s\n${usage()}`);
  const unit = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 }[match[2] as 'd' | 'h' | 'm' | 's'];
  return Number(match[1]) * unit;
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
