import { builder } from '../../graphql/builder.ts';
import { requireOperator } from '../../graphql/guards.ts';
import { formatUnits } from '../../money.ts';
import type { SweepHoldView } from './deposit.service.ts';
import { SWEEP_PARK_AFTER } from './sweep-hold.ts';

/** Forwarders whose sweeps keep failing (sweep-hold.ts): what operators see of them, and their retry. */

const SweepHoldRef = builder.objectRef<SweepHoldView>('SweepHold').implement({
  description:
    `A forwarder and token whose sweeps failed: backing off between attempts, or parked after ${SWEEP_PARK_AFTER} ` +
    'failures in a row until an operator retries it. Its credited deposits wait in the forwarder meanwhile.',
  fields: (t) => ({
    network: t.exposeString('network'),
    address: t.exposeString('address', { description: 'The forwarder (EIP-55 0x, T… on tron).' }),
    merchantId: t.exposeID('merchantId'),
    playerId: t.exposeString('playerId'),
    token: t.exposeString('token', { description: 'Token symbol.' }),
    tokenAddress: t.exposeString('tokenAddress'),
    attempts: t.exposeInt('failures', {
      description: 'Failed sweeps in a row (reset by an operator retry).',
    }),
    reason: t.exposeString('lastError', {
      description: 'The last failure’s revert, decoded where known (e.g. Blacklisted(0x…)).',
    }),
    parked: t.boolean({ resolve: (h) => h.parkedAt !== null }),
    parkedAt: t.expose('parkedAt', { type: 'DateTime', nullable: true }),
    nextAttemptAt: t.expose('retryAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the next sweep may carry it; null when parked, or due now.',
    }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deposits: t.exposeInt('deposits', { description: 'Credited deposits waiting in the forwarder.' }),
    credited: t.string({
      description: 'Their credited total, whole units.',
      resolve: (h) => formatUnits(BigInt(h.creditedRaw), h.decimals),
    }),
  }),
});

builder.queryFields((t) => ({
  sweepHolds: t.field({
    type: [SweepHoldRef],
    description: 'Forwarders whose sweeps fail, parked first (at most 500; operators).',
    args: { network: t.arg.string(), parked: t.arg.boolean() },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.deposits.sweepHolds(ctx.em, args);
    },
  }),
}));

builder.mutationFields((t) => ({
  sweepRetry: t.field({
    type: SweepHoldRef,
    description:
      'Retries a failing or parked forwarder now: the next sweep carries it, and its failures count from zero (operators).',
    args: {
      network: t.arg.string({ required: true }),
      address: t.arg.string({ required: true, description: 'The forwarder.' }),
      token: t.arg.string({ required: true, description: 'Token symbol.' }),
    },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.deposits.retrySweep(ctx.em, args);
    },
  }),
}));
