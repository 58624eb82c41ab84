import type { NetworkRegistry } from '../../chains/registry.ts';
import type { EntityManager } from '../../db/orm.ts';
import { units } from './report.service.ts';

/**
 * The console's overview, summed by PostgreSQL in base units: per network and token, what completed
 * today (UTC) and over the last 7 days; counts of what needs an operator now; and daily deposit
 * volume over the last 14 days for the chart.
 */

export interface Activity {
  network: string;
  token: string;
  /** `today` (since 00:00 UTC) or `7d` (the last 7 × 24 hours). */
  window: string;
  depositsCompleted: number;
  depositsAmount: string;
  payoutsPaid: number;
  payoutsAmount: string;
  payoutsFailed: number;
  credits: number;
  creditsAmount: string;
}

export interface Attention {
  failedWebhooks: number;
  failedPayouts24h: number;
  /** Authorized or submitted and unchanged for 15 minutes. */
  stuckPayouts: number;
  failedSweeps: number;
}

export interface VolumePoint {
  day: string;
  network: string;
  token: string;
  amount: string;
}

/** How long an authorized or submitted payout may sit unchanged before it counts as stuck. */
export const STUCK_AFTER_MINUTES = 15;

export async function activity(em: EntityManager, networks: NetworkRegistry): Promise<Activity[]> {
  const rows = await em.execute<
    {
      network: string;
      token: string;
      w: string;
      dn: string;
      da: string;
      pn: string;
      pa: string;
      fn: string;
      cn: string;
      ca: string;
    }[]
  >(
    `with bounds as (select date_trunc('day', now() at time zone 'utc') at time zone 'utc' as today,
                            now() - interval '7 days' as week),
     m as (
       select s.network, s.token, s.settled_at as at, 'd' as k, p.amount_raw as raw
         from sessions s join payments p on p.id = s.payment_id, bounds
        where s.status = 'completed' and s.settled_at >= bounds.week
       union all
       select o.network, o.token, coalesce(o.settled_at, o.updated_at), case when o.status = 'completed' then 'p' else 'f' end,
              case when o.status = 'completed' then o.amount_raw else 0 end
         from payouts o, bounds
        where o.status in ('completed', 'failed') and coalesce(o.settled_at, o.updated_at) >= bounds.week
       union all
       select d.network, d.token, d.credited_at, 'c', d.credited_raw
         from deposits d, bounds where d.status = 'credited' and d.credited_at >= bounds.week)
     select network, token, w,
            count(*) filter (where k = 'd')::text as dn, coalesce(sum(raw) filter (where k = 'd'), 0)::text as da,
            count(*) filter (where k = 'p')::text as pn, coalesce(sum(raw) filter (where k = 'p'), 0)::text as pa,
            count(*) filter (where k = 'f')::text as fn,
            count(*) filter (where k = 'c')::text as cn, coalesce(sum(raw) filter (where k = 'c'), 0)::text as ca
       from (select m.*, 'today' as w from m, bounds where m.at >= bounds.today
             union all select m.*, '7d' from m) x
      group by network, token, w order by network, token, w desc`,
  );
  return rows.map((r) => {
    const d = networks.token(r.network, r.token)?.decimals ?? 0;
    return {
      network: r.network,
      token: r.token,
      window: r.w,
      depositsCompleted: Number(r.dn),
      depositsAmount: units(r.da, d),
      payoutsPaid: Number(r.pn),
      payoutsAmount: units(r.pa, d),
      payoutsFailed: Number(r.fn),
      credits: Number(r.cn),
      creditsAmount: units(r.ca, d),
    };
  });
}

export async function attention(em: EntityManager): Promise<Attention> {
  const [row] = await em.execute<{ w: string; f: string; s: string; sw: string }[]>(
    `select (select count(*) from webhook_deliveries where status = 'failed')::text as w,
            (select count(*) from payouts where status = 'failed'
                and coalesce(settled_at, updated_at) > now() - interval '24 hours')::text as f,
            (select count(*) from payouts where status in ('authorized', 'submitted')
                and updated_at < now() - interval '${STUCK_AFTER_MINUTES} minutes')::text as s,
            (select count(*) from sweeps where status = 'failed')::text as sw`,
  );
  return {
    failedWebhooks: Number(row?.w ?? 0),
    failedPayouts24h: Number(row?.f ?? 0),
    stuckPayouts: Number(row?.s ?? 0),
    failedSweeps: Number(row?.sw ?? 0),
  };
}

/** Completed session deposits and credits per UTC day, the last 14 days. */
export async function volume(em: EntityManager, networks: NetworkRegistry): Promise<VolumePoint[]> {
  const rows = await em.execute<{ day: string; network: string; token: string; raw: string }[]>(
    `select to_char(day, 'YYYY-MM-DD') as day, network, token, sum(raw)::text as raw from (
       select date_trunc('day', s.settled_at at time zone 'utc') as day, s.network, s.token, p.amount_raw as raw
         from sessions s join payments p on p.id = s.payment_id
        where s.status = 'completed' and s.settled_at >= now() - interval '14 days'
       union all
       select date_trunc('day', d.credited_at at time zone 'utc'), d.network, d.token, d.credited_raw
         from deposits d where d.status = 'credited' and d.credited_at >= now() - interval '14 days') v
     group by 1, 2, 3 order by 1, 2, 3`,
  );
  return rows.map((r) => ({
    day: r.day,
    network: r.network,
    token: r.token,
    amount: units(r.raw, networks.token(r.network, r.token)?.decimals ?? 0),
  }));
}
