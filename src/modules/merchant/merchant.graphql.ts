import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { requireOperator } from '../../graphql/guards.ts';
import { httpUrl } from '../../lib/validation.ts';
import type { ApiKey } from '../auth/auth.entity.ts';
import { type AllowedIp, Merchant, type SettlementWallet } from './merchant.entity.ts';

/** Operator administration of merchants: keys, wallets, allowlist and webhook settings. */

const ApiKeyRef = builder.objectRef<ApiKey>('ApiKey').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    label: t.exposeString('label', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    active: t.boolean({ resolve: (k) => !k.revokedAt || k.revokedAt > new Date() }),
  }),
});

const WalletRef = builder.objectRef<SettlementWallet>('SettlementWallet').implement({
  fields: (t) => ({
    network: t.exposeString('network'),
    address: t.exposeString('address'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const MerchantRef = builder.objectRef<Merchant>('Merchant').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    displayName: t.exposeString('displayName', {
      nullable: true,
      description: 'What players see on the hosted page; null: `name`.',
    }),
    webhookUrl: t.exposeString('webhookUrl', { nullable: true }),
    webhooksEnabled: t.exposeBoolean('webhooksEnabled'),
    tronPayoutWallet: t.exposeString('tronPayoutWallet', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    apiKeys: t.field({
      type: [ApiKeyRef],
      resolve: (m, _, ctx) => ctx.services.merchants.listKeys(ctx.em, m.id),
    }),
    settlementWallets: t.field({
      type: [WalletRef],
      resolve: (m, _, ctx) => ctx.services.merchants.wallets(ctx.em, m.id),
    }),
    ipAllowlist: t.stringList({
      resolve: async (m, _, ctx) =>
        (await ctx.services.merchants.allowlist(ctx.em, m.id)).map((a: AllowedIp) => a.cidr),
    }),
  }),
});

const IssuedKeyRef = builder
  .objectRef<{ id: string; secret: string; merchantId: string }>('IssuedApiKey')
  .implement({
    description: 'A new API key. The secret is shown here once and never again.',
    fields: (t) => ({
      id: t.exposeID('id'),
      secret: t.exposeString('secret'),
      merchantId: t.exposeID('merchantId'),
    }),
  });

builder.queryFields((t) => ({
  merchant: t.field({
    type: MerchantRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.merchants.get(ctx.em, String(args.id));
    },
  }),
  merchants: t.field({
    type: [MerchantRef],
    resolve: (_, __, ctx) => {
      requireOperator(ctx);
      return ctx.em.find(Merchant, {}, { orderBy: { createdAt: 'asc' }, limit: 500 });
    },
  }),
}));

const MerchantInput = builder.inputType('MerchantInput', {
  fields: (t) => ({
    name: t.string({ required: false, validate: z.string().min(1).max(200) }),
    displayName: t.string({
      required: false,
      description: 'Shown to players on the hosted page; an empty string clears it (the name is shown).',
      validate: z.string().max(200),
    }),
    webhookUrl: t.string({ required: false, validate: httpUrl }),
    webhooksEnabled: t.boolean({ required: false }),
    tronPayoutWallet: t.string({ required: false }),
  }),
});

builder.mutationFields((t) => ({
  createMerchant: t.field({
    type: MerchantRef,
    args: {
      name: t.arg.string({ required: true, validate: z.string().min(1).max(200) }),
      webhookUrl: t.arg.string({ validate: httpUrl }),
    },
    resolve: async (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.merchants.create(ctx.em, { name: args.name, webhookUrl: args.webhookUrl });
    },
  }),
  updateMerchant: t.field({
    type: MerchantRef,
    description:
      'Updates name, display name, default webhook URL, webhook switch and the Tron payout wallet.',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: MerchantInput, required: true }) },
    resolve: async (_, { id, input }, ctx) => {
      requireOperator(ctx);
      return ctx.services.merchants.update(ctx.em, String(id), {
        name: input.name ?? undefined,
        displayName: input.displayName === undefined ? undefined : input.displayName?.trim() || null,
        webhookUrl: input.webhookUrl,
        webhooksEnabled: input.webhooksEnabled ?? undefined,
        tronPayoutWallet: input.tronPayoutWallet,
      });
    },
  }),
  issueApiKey: t.field({
    type: IssuedKeyRef,
    args: {
      merchantId: t.arg.id({ required: true }),
      label: t.arg.string({ validate: z.string().max(200) }),
    },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.merchants.issueKey(ctx.em, String(args.merchantId), args.label);
    },
  }),
  rotateApiKey: t.field({
    type: IssuedKeyRef,
    description: 'Issues a new key and revokes the old one after `graceSeconds` (default 0).',
    args: {
      keyId: t.arg.id({ required: true }),
      graceSeconds: t.arg.int({
        validate: z
          .number()
          .int()
          .min(0)
          .max(30 * 86_400),
      }),
    },
    resolve: async (_, args, ctx) => {
      requireOperator(ctx);
      return (await ctx.services.merchants.rotateKey(ctx.em, String(args.keyId), args.graceSeconds ?? 0))
        .issued;
    },
  }),
  revokeApiKey: t.field({
    type: ApiKeyRef,
    args: { keyId: t.arg.id({ required: true }) },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.merchants.revokeKey(ctx.em, String(args.keyId));
    },
  }),
  setSettlementWallet: t.field({
    type: WalletRef,
    args: {
      merchantId: t.arg.id({ required: true }),
      network: t.arg.string({ required: true }),
      address: t.arg.string({ required: true }),
    },
    resolve: (_, args, ctx) => {
      requireOperator(ctx);
      return ctx.services.merchants.setSettlementWallet(
        ctx.em,
        String(args.merchantId),
        args.network,
        args.address,
      );
    },
  }),
  setIpAllowlist: t.stringList({
    description: 'Replaces the allowlist (IP addresses or CIDR ranges); an empty list allows any address.',
    args: { merchantId: t.arg.id({ required: true }), entries: t.arg.stringList({ required: true }) },
    resolve: async (_, args, ctx) => {
      requireOperator(ctx);
      const rows = await ctx.services.merchants.setAllowlist(ctx.em, String(args.merchantId), args.entries);
      return rows.map((r) => r.cidr);
    },
  }),
}));
