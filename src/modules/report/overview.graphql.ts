import { builder } from '../../graphql/builder.ts';
import { requireOperator } from '../../graphql/guards.ts';
import { type Activity, type Attention, activity, attention, type VolumePoint, volume } from './overview.ts';

/** Operators: the console's overview (activity, what needs attention, volume over time). */

const ActivityRef = builder.objectRef<Activity>('OverviewActivity').implement({
  description: 'What completed on one network and token in a window; amounts in whole units.',
  fields: (t) => ({
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    window: t.exposeString('window', { description: '`today` (UTC) or `7d` (the last 7 days).' }),
    depositsCompleted: t.exposeInt('depositsCompleted'),
    depositsAmount: t.exposeString('depositsAmount'),
    payoutsPaid: t.exposeInt('payoutsPaid'),
    payoutsAmount: t.exposeString('payoutsAmount'),
    payoutsFailed: t.exposeInt('payoutsFailed'),
    credits: t.exposeInt('credits', { description: 'Standing-address deposits credited.' }),
    creditsAmount: t.exposeString('creditsAmount'),
  }),
});

const AttentionRef = builder.objectRef<Attention>('OverviewAttention').implement({
  description: 'Counts of what needs an operator now.',
  fields: (t) => ({
    failedWebhooks: t.exposeInt('failedWebhooks', { description: 'Deliveries that gave up.' }),
    failedPayouts24h: t.exposeInt('failedPayouts24h', {
      description: 'Payouts failed in the last 24 hours.',
    }),
    stuckPayouts: t.exposeInt('stuckPayouts', {
      description: 'Authorized or submitted payouts unchanged for 15 minutes.',
    }),
    failedSweeps: t.exposeInt('failedSweeps'),
  }),
});

const VolumeRef = builder.objectRef<VolumePoint>('VolumePoint').implement({
  description: 'Deposits (sessions and credits) of one UTC day, network and token, whole units.',
  fields: (t) => ({
    day: t.exposeString('day'),
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    amount: t.exposeString('amount'),
  }),
});

interface Overview {
  activity: Activity[];
  attention: Attention;
  volume: VolumePoint[];
}

const OverviewRef = builder.objectRef<Overview>('Overview').implement({
  fields: (t) => ({
    activity: t.field({ type: [ActivityRef], resolve: (o) => o.activity }),
    attention: t.field({ type: AttentionRef, resolve: (o) => o.attention }),
    volume: t.field({ type: [VolumeRef], description: 'The last 14 days.', resolve: (o) => o.volume }),
  }),
});

builder.queryFields((t) => ({
  overview: t.field({
    type: OverviewRef,
    description: 'Activity today and over 7 days, what needs attention, and daily volume (operators).',
    resolve: async (_, __, ctx) => {
      requireOperator(ctx);
      const networks = ctx.services.networks;
      const [a, b, c] = await Promise.all([
        activity(ctx.em.fork(), networks),
        attention(ctx.em.fork()),
        volume(ctx.em.fork(), networks),
      ]);
      return { activity: a, attention: b, volume: c };
    },
  }),
}));
