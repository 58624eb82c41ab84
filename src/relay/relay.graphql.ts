import { builder } from '../graphql/builder.ts';
import { requireOperator } from '../graphql/guards.ts';
import type { RelayRequest, RelayTransaction } from './relay.entity.ts';
import { type RelayerWalletStatus, relayerWallets } from './relay.status.ts';

/** Operators: the relayer hot wallets and the relay requests with their transactions and replacements. */

const WalletRef = builder.objectRef<RelayerWalletStatus>('RelayerWallet').implement({
  description:
    'A network’s relayer hot wallet: it pays gas for payouts and sweeps, never holds merchant funds.',
  fields: (t) => ({
    network: t.exposeString('network'),
    address: t.exposeString('address'),
    balance: t.exposeString('balance', { nullable: true, description: 'Native coin, whole units.' }),
    balanceRaw: t.exposeString('balanceRaw', { nullable: true }),
    nextNonce: t.exposeInt('nextNonce', { nullable: true }),
    queued: t.exposeInt('queued', { description: 'Requests waiting to be sent (or retried).' }),
    submitted: t.exposeInt('submitted', { description: 'Requests sent and not finished.' }),
    outOfGasSince: t.expose('outOfGasSince', {
      type: 'DateTime',
      nullable: true,
      description: 'Set while the wallet cannot pay for gas: relays wait until it is funded.',
    }),
    lastError: t.exposeString('lastError', { nullable: true }),
  }),
});

export const RelayTransactionRef = builder.objectRef<RelayTransaction>('RelayTransaction').implement({
  fields: (t) => ({
    hash: t.exposeString('hash'),
    kind: t.exposeString('kind', {
      description: 'call, or filler (a 0-value self-transfer filling a nonce).',
    }),
    nonce: t.int({ nullable: true, resolve: (x) => (x.nonce == null ? null : Number(x.nonce)) }),
    status: t.exposeString('status', { description: 'signed, sent, mined, replaced or dropped.' }),
    maxFeePerGas: t.string({ nullable: true, resolve: (x) => x.maxFee ?? null }),
    priorityFeePerGas: t.string({ nullable: true, resolve: (x) => x.priorityFee ?? null }),
    minedBlock: t.int({
      nullable: true,
      resolve: (x) => (x.minedBlock == null ? null : Number(x.minedBlock)),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    sentAt: t.expose('sentAt', { type: 'DateTime', nullable: true }),
  }),
});

export const RelayRequestRef = builder
  .objectRef<{ request: RelayRequest; transactions: RelayTransaction[] }>('RelayRequest')
  .implement({
    fields: (t) => ({
      id: t.id({ resolve: (x) => x.request.id }),
      kind: t.string({ resolve: (x) => x.request.kind }),
      subjectId: t.string({ resolve: (x) => x.request.subjectId }),
      network: t.string({ resolve: (x) => x.request.network }),
      status: t.string({
        description: 'queued, submitted, mined, done or abandoned.',
        resolve: (x) => x.request.status,
      }),
      txHash: t.string({ nullable: true, resolve: (x) => x.request.txHash ?? null }),
      attempts: t.int({ resolve: (x) => x.request.attempts }),
      lastError: t.string({ nullable: true, resolve: (x) => x.request.lastError ?? null }),
      transactions: t.field({
        type: [RelayTransactionRef],
        description: 'Every transaction signed for it, replacements included, oldest first.',
        resolve: (x) => x.transactions,
      }),
    }),
  });

builder.queryFields((t) => ({
  relayerWallets: t.field({
    type: [WalletRef],
    description: 'Each network’s relayer wallet with its balance, queue and any out-of-gas episode.',
    resolve: (_, __, ctx) => {
      requireOperator(ctx);
      return relayerWallets(ctx.services.relayer, ctx.em);
    },
  }),
}));
