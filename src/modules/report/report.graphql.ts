import { builder } from '../../graphql/builder.ts';
import { requireOperator } from '../../graphql/guards.ts';
import { type Movement, movements, periodOf, type ReportTotal, totals, units } from './report.service.ts';

/** Operators: the settlement report of a merchant over whole UTC days (its CSV: report.csv.ts). */

/** Rows one query returns at most; the CSV download has them all. */
export const REPORT_ROW_LIMIT = 1000;

type MovementRow = Movement & { decimals: number };

const MovementRef = builder.objectRef<MovementRow>('ReportMovement').implement({
  description: 'One money movement; amounts in whole units of its token, exact.',
  fields: (t) => ({
    kind: t.exposeString('kind', {
      description:
        'deposit (a completed session), credit and fee (a standing-address deposit), payout, payout_failed (at zero).',
    }),
    objectType: t.exposeString('objectType', { description: 'session, deposit or payout.' }),
    objectId: t.exposeString('objectId'),
    occurredAt: t.expose('occurredAt', { type: 'DateTime' }),
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    amountIn: t.string({ resolve: (m) => units(m.inRaw, m.decimals) }),
    fee: t.string({ resolve: (m) => units(m.feeRaw, m.decimals) }),
    amountOut: t.string({ resolve: (m) => units(m.outRaw, m.decimals) }),
    txHash: t.exposeString('txHash', { nullable: true }),
    block: t.exposeInt('block', { nullable: true }),
  }),
});

const TotalRef = builder.objectRef<ReportTotal>('ReportTotal').implement({
  description: 'One network and token of a report: whole units, and base units (`…Raw`).',
  fields: (t) => ({
    network: t.exposeString('network'),
    token: t.exposeString('token'),
    decimals: t.exposeInt('decimals'),
    movements: t.exposeInt('movements'),
    opening: t.string({ resolve: (r) => units(r.openingRaw, r.decimals) }),
    amountIn: t.string({ resolve: (r) => units(r.inRaw, r.decimals) }),
    fee: t.string({ resolve: (r) => units(r.feeRaw, r.decimals) }),
    amountOut: t.string({ resolve: (r) => units(r.outRaw, r.decimals) }),
    closing: t.string({ resolve: (r) => units(r.closingRaw, r.decimals) }),
    openingRaw: t.exposeString('openingRaw'),
    amountInRaw: t.exposeString('inRaw'),
    feeRaw: t.exposeString('feeRaw'),
    amountOutRaw: t.exposeString('outRaw'),
    closingRaw: t.exposeString('closingRaw'),
  }),
});

interface Report {
  merchantId: string;
  from: string;
  to: string;
  rows: MovementRow[];
  truncated: boolean;
  totals: ReportTotal[];
}

const ReportRef = builder.objectRef<Report>('SettlementReport').implement({
  description:
    'A merchant’s money movements over whole UTC days, one row per movement, with the opening and closing position per network and token.',
  fields: (t) => ({
    merchantId: t.exposeID('merchantId'),
    from: t.exposeString('from', { description: 'First UTC day.' }),
    to: t.exposeString('to', { description: 'Last UTC day (included).' }),
    rows: t.field({ type: [MovementRef], resolve: (r) => r.rows }),
    truncated: t.exposeBoolean('truncated', {
      description: `More than ${REPORT_ROW_LIMIT} movements: the CSV download has them all (the totals always cover all).`,
    }),
    totals: t.field({ type: [TotalRef], resolve: (r) => r.totals }),
  }),
});

builder.queryFields((t) => ({
  settlementReport: t.field({
    type: ReportRef,
    description:
      'The settlement report of a merchant over UTC days `from` to `to` (YYYY-MM-DD, both included, at most 366 days); operators.',
    args: {
      merchantId: t.arg.id({ required: true }),
      from: t.arg.string({ required: true }),
      to: t.arg.string({ required: true }),
    },
    resolve: async (_, args, ctx) => {
      requireOperator(ctx);
      const merchantId = String(args.merchantId);
      await ctx.services.merchants.get(ctx.em, merchantId);
      const period = periodOf(merchantId, args.from, args.to);
      const decimals = (m: Movement) => ctx.services.networks.token(m.network, m.token)?.decimals ?? 0;
      const rows: MovementRow[] = [];
      let truncated = false;
      for await (const chunk of movements(ctx.em, period, REPORT_ROW_LIMIT + 1)) {
        rows.push(...chunk.map((m) => ({ ...m, decimals: decimals(m) })));
        truncated = rows.length > REPORT_ROW_LIMIT;
        break;
      }
      return {
        merchantId,
        from: args.from,
        to: args.to,
        rows: rows.slice(0, REPORT_ROW_LIMIT),
        truncated,
        totals: await totals(ctx.em, ctx.services.networks, period),
      };
    },
  }),
}));
