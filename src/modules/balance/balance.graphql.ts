import { builder } from '../../graphql/builder.ts';
import { merchantScope } from '../../graphql/guards.ts';
import type { BalanceEntry } from './balance.service.ts';

/** The settlement wallets' balances (merchants over REST; operators naming a merchant). */

const EntryRef = builder.objectRef<BalanceEntry>('BalanceEntry').implement({
  fields: (t) => ({
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    address: t.exposeString('address', { description: 'Token contract.' }),
    decimals: t.exposeInt('decimals'),
    wallet: t.exposeString('wallet', { description: 'The settlement wallet this entry reads.' }),
    amount: t.exposeString('amount', {
      nullable: true,
      description: 'Whole units; absent when the read failed.',
    }),
    raw: t.exposeString('raw', { nullable: true, description: 'Base units.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the read failed.' }),
  }),
});

const BalanceRef = builder.objectRef<{ wallet: string; balances: BalanceEntry[] }>('Balance').implement({
  fields: (t) => ({
    wallet: t.exposeString('wallet', { description: 'The EVM settlement wallet (the first EVM network’s).' }),
    balances: t.field({ type: [EntryRef], resolve: (b) => b.balances }),
  }),
});

builder.queryFields((t) => ({
  balance: t.field({
    type: BalanceRef,
    description:
      'Every token balance of the settlement wallets, read now; a failed read is an entry with error.',
    args: { merchantId: t.arg.id({ description: 'Operators: the merchant to read. Merchants: omit.' }) },
    resolve: (_, { merchantId }, ctx) =>
      ctx.services.balances.balances(ctx.em, merchantScope(ctx, merchantId && String(merchantId))),
  }),
}));
