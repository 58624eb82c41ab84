import { builder } from '../../graphql/builder.ts';
import { merchantScope, requireOperator } from '../../graphql/guards.ts';
import { operatorListing, pageRef } from '../../graphql/pagination.ts';
import { formatUnits } from '../../money.ts';
import {
  DEPOSIT_STATUSES,
  type Deposit,
  type DepositAddress,
  SWEEP_STATUSES,
  type Sweep,
  type SweepOutcome,
} from './deposit.entity.ts';
import type { IssuedAddress, SweepTotal } from './deposit.service.ts';
import { depositAddressRequest } from './deposit-address.schemas.ts';

/** Standing deposit addresses: issuing (merchants over REST), and deposits and sweeps for operators. */

const IssuedRef = builder.objectRef<IssuedAddress>('DepositAddressIssued').implement({
  description: 'A player’s standing deposit address on one network.',
  fields: (t) => ({
    playerId: t.exposeString('playerId'),
    network: t.exposeString('network'),
    address: t.exposeString('address', { description: 'EIP-55 0x on EVM networks, T… on tron.' }),
    tokens: t.exposeStringList('tokens', { description: 'Token symbols credited at this address.' }),
  }),
});

const AddressRef = builder.objectRef<DepositAddress>('DepositAddress').implement({
  description: 'An issued address and the settlement wallet it is bound to (lowercase 0x forms).',
  fields: (t) => ({
    id: t.id({ resolve: (a) => String(a.id) }),
    merchantId: t.id({ resolve: (a) => a.merchant.id }),
    network: t.exposeString('network'),
    playerId: t.exposeString('playerId'),
    address: t.exposeString('address'),
    wallet: t.exposeString('wallet'),
    deployed: t.exposeBoolean('deployed', {
      description: 'The forwarder is on chain (set by its first sweep).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const whole = (raw: string, decimals: number) => formatUnits(BigInt(raw), decimals);

const DepositRef = builder.objectRef<Deposit>('Deposit').implement({
  description: 'A transfer to a standing address: pending until final, then credited (or below_fee).',
  fields: (t) => ({
    id: t.exposeID('id'),
    merchantId: t.id({ resolve: (d) => d.merchant.id }),
    network: t.exposeString('network'),
    playerId: t.exposeString('playerId'),
    address: t.string({ resolve: (d) => d.address.address }),
    token: t.exposeString('token'),
    amount: t.string({ resolve: (d) => whole(d.amountRaw, d.decimals) }),
    fee: t.string({ resolve: (d) => whole(d.feeRaw, d.decimals) }),
    credited: t.string({ resolve: (d) => whole(d.creditedRaw, d.decimals) }),
    txHash: t.exposeString('txHash'),
    logIndex: t.exposeInt('logIndex'),
    block: t.int({ resolve: (d) => Number(d.blockNumber) }),
    status: t.exposeString('status', { description: DEPOSIT_STATUSES.join(', ') }),
    sweepId: t.exposeString('sweepId', { nullable: true }),
    creditedAt: t.expose('creditedAt', { type: 'DateTime', nullable: true }),
    sweptAt: t.expose('sweptAt', { type: 'DateTime', nullable: true }),
    sweptBy: t.exposeString('sweptBy', {
      nullable: true,
      description:
        'service: by a sweep of the service; outside: its forwarder was found emptied by ForwarderFactory.sweep ' +
        'outside the service (the merchant’s own way out, paying only to the settlement wallet).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const OutcomeRef = builder.objectRef<SweepOutcome>('SweepOutcome').implement({
  fields: (t) => ({
    address: t.exposeString('address', { description: 'The forwarder.' }),
    token: t.exposeString('token', { description: 'Token contract.' }),
    amountRaw: t.exposeString('amountRaw', { description: 'Base units moved to the settlement wallet.' }),
    feeRaw: t.exposeString('feeRaw', { description: 'Base units moved to the fee wallet.' }),
    error: t.exposeString('error', { nullable: true, description: 'Revert data of a failed sweep.' }),
  }),
});

const SweepRef = builder.objectRef<Sweep>('Sweep').implement({
  description: 'One sweepMany transaction: queued, mined, done, or failed (its deposits swept anew).',
  fields: (t) => ({
    id: t.exposeID('id'),
    network: t.exposeString('network'),
    status: t.exposeString('status', { description: SWEEP_STATUSES.join(', ') }),
    items: t.exposeInt('items', { description: 'Forwarder and token pairs in the call.' }),
    txHash: t.exposeString('txHash', { nullable: true }),
    minedBlock: t.int({
      nullable: true,
      resolve: (s) => (s.minedBlock == null ? null : Number(s.minedBlock)),
    }),
    outcomes: t.field({ type: [OutcomeRef], resolve: (s) => s.outcomes ?? [] }),
    lastError: t.exposeString('lastError', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const TotalRef = builder.objectRef<SweepTotal>('SweepTotal').implement({
  description: 'What done sweeps moved for one token of one network.',
  fields: (t) => ({
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    swept: t.string({
      description: 'To settlement wallets, whole units.',
      resolve: (s) => whole(s.sweptRaw, s.decimals),
    }),
    fees: t.string({
      description: 'The fee wallet’s take, whole units.',
      resolve: (s) => whole(s.feesRaw, s.decimals),
    }),
    sweeps: t.exposeInt('sweeps'),
    feeWallet: t.exposeString('feeWallet', { nullable: true }),
  }),
});

const DepositPageRef = pageRef('DepositPage', DepositRef);
const SweepPageRef = pageRef('SweepPage', SweepRef);

const AddressInput = builder.inputType('DepositAddressInput', {
  validate: depositAddressRequest,
  fields: (t) => ({
    playerId: t.string({ required: true }),
    network: t.string({ required: true }),
  }),
});

const DepositStatusEnum = builder.enumType('DepositStatus', { values: DEPOSIT_STATUSES });
const SweepStatusEnum = builder.enumType('SweepStatus', { values: SWEEP_STATUSES });

builder.mutationFields((t) => ({
  depositAddress: t.field({
    type: IssuedRef,
    description: 'The player’s standing deposit address on a network; the same pair gives the same address.',
    args: {
      merchantId: t.arg.id({ description: 'Operators: the merchant to act for. Merchants: omit.' }),
      input: t.arg({ type: AddressInput, required: true }),
    },
    resolve: (_, { merchantId, input }, ctx) =>
      ctx.services.deposits.issue(ctx.em, merchantScope(ctx, merchantId && String(merchantId)), input),
  }),
}));

builder.queryFields((t) => ({
  deposits: operatorListing(t, {
    type: DepositPageRef,
    description: 'Deposits to standing addresses, newest first (operators).',
    args: {
      merchantId: t.arg.id(),
      network: t.arg.string(),
      playerId: t.arg.string(),
      status: t.arg({ type: DepositStatusEnum }),
    },
    max: 200,
    byDefault: 50,
    list: (ctx, args, first, after) =>
      ctx.services.deposits.listDeposits(
        ctx.em,
        {
          merchantId: args.merchantId ? String(args.merchantId) : null,
          network: args.network,
          playerId: args.playerId,
          status: args.status,
        },
        first,
        after,
      ),
  }),
  depositAddresses: t.field({
    type: [AddressRef],
    description:
      'A merchant’s issued addresses (at most 500, newest first), optionally of one player (operators).',
    args: { merchantId: t.arg.id({ required: true }), playerId: t.arg.string() },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.deposits.addresses(ctx.em, String(args.merchantId), args.playerId);
    },
  }),
  sweeps: operatorListing(t, {
    type: SweepPageRef,
    description: 'Sweeps newest first (operators).',
    args: { network: t.arg.string(), status: t.arg({ type: SweepStatusEnum }) },
    max: 200,
    byDefault: 50,
    list: (ctx, args, first, after) =>
      ctx.services.deposits.listSweeps(ctx.em, { network: args.network, status: args.status }, first, after),
  }),
  sweepTotals: t.field({
    type: [TotalRef],
    description: 'Per network and token: what done sweeps moved, and the fee wallet’s take (operators).',
    resolve: (_, __, ctx) => {
      requireOperator(ctx);
      return ctx.services.deposits.sweepTotals(ctx.em);
    },
  }),
}));
