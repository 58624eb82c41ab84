import type { NetworkRegistry } from '../../chains/registry.ts';
import type { EntityManager } from '../../db/orm.ts';
import { validation } from '../../errors.ts';
import { formatUnits } from '../../money.ts';

/**
 * The settlement report of one merchant over a period of whole UTC days: one row per money movement
 * (a completed session's payment, a standing-address credit and its fee, a paid payout, a failed
 * payout at zero), the object it belongs to in its own column, and per network and token the opening
 * position, what came in, the fees, what went out and the closing position. Every sum is taken in
 * base units by PostgreSQL; whole units appear only when a row is written out.
 */

/** Kinds of report rows. */
export type MovementKind = 'deposit' | 'credit' | 'fee' | 'payout' | 'payout_failed';

/** One money movement, base units as decimal strings. */
export interface Movement {
  kind: MovementKind;
  /** `session`, `deposit` (standing address) or `payout`. */
  objectType: string;
  objectId: string;
  occurredAt: Date;
  network: string;
  token: string;
  inRaw: string;
  outRaw: string;
  feeRaw: string;
  txHash: string | null;
  block: number | null;
}

/** Per network and token, base units. */
export interface ReportTotal {
  network: string;
  token: string;
  decimals: number;
  openingRaw: string;
  inRaw: string;
  feeRaw: string;
  outRaw: string;
  closingRaw: string;
  movements: number;
}

export interface Period {
  merchantId: string;
  from: Date;
  /** Exclusive: the start of the day after the last day. */
  to: Date;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Longest period one report covers. */
export const MAX_REPORT_DAYS = 366;

/** A period from `YYYY-MM-DD` UTC days, both included. */
export function periodOf(merchantId: string, fromDay: string, toDay: string): Period {
  const day = (name: string, value: string) => {
    const at = DAY.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(Number.NaN);
    if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value)
      throw validation(`${name}: a UTC day as YYYY-MM-DD`);
    return at;
  };
  const from = day('from', fromDay);
  const to = new Date(day('to', toDay).getTime() + 86_400_000);
  if (to <= from) throw validation('to: on or after from');
  if ((to.getTime() - from.getTime()) / 86_400_000 > MAX_REPORT_DAYS)
    throw validation(`to: at most ${MAX_REPORT_DAYS} days after from`);
  return { merchantId, from, to };
}

/**
 * Every movement of a merchant in the period, in one union (`?` bindings: merchant, from, to for each
 * part). A standing-address deposit is two movements: the credit to the merchant, the fee to the fee
 * wallet; so no column counts a base unit twice.
 */
function movementsSql(period: Period): [string, unknown[]] {
  const parts = [
    `select 'deposit' as kind, 'session' as object_type, s.id as object_id, s.settled_at as occurred_at,
            s.network, s.token, p.amount_raw as in_raw, 0::numeric as out_raw, 0::numeric as fee_raw,
            p.tx_hash, p.block_number
       from sessions s join payments p on p.id = s.payment_id
      where s.merchant_id = ? and s.status = 'completed' and s.settled_at >= ? and s.settled_at < ?`,
    `select 'credit', 'deposit', d.id, d.credited_at, d.network, d.token, d.credited_raw, 0, 0, d.tx_hash,
            d.block_number
       from deposits d
      where d.merchant_id = ? and d.status = 'credited' and d.credited_at >= ? and d.credited_at < ?`,
    `select 'fee', 'deposit', d.id, d.credited_at, d.network, d.token, 0, 0, d.fee_raw, d.tx_hash,
            d.block_number
       from deposits d
      where d.merchant_id = ? and d.status = 'credited' and d.fee_raw > 0
        and d.credited_at >= ? and d.credited_at < ?`,
    `select case when o.status = 'completed' then 'payout' else 'payout_failed' end, 'payout', o.id,
            coalesce(o.settled_at, o.updated_at), o.network, o.token, 0,
            case when o.status = 'completed' then o.amount_raw else 0 end, 0, o.tx_hash, o.executed_block
       from payouts o
      where o.merchant_id = ? and o.status in ('completed', 'failed')
        and coalesce(o.settled_at, o.updated_at) >= ? and coalesce(o.settled_at, o.updated_at) < ?`,
  ];
  const params = parts.flatMap(() => [period.merchantId, period.from, period.to]);
  return [parts.join('\n union all\n'), params];
}

type Row = {
  kind: MovementKind;
  object_type: string;
  object_id: string;
  occurred_at: Date | string;
  network: string;
  token: string;
  in_raw: string;
  out_raw: string;
  fee_raw: string;
  tx_hash: string | null;
  block_number: string | number | null;
};

const toMovement = (r: Row): Movement => ({
  kind: r.kind,
  objectType: r.object_type,
  objectId: r.object_id,
  occurredAt: new Date(r.occurred_at),
  network: r.network,
  token: r.token,
  inRaw: String(r.in_raw),
  outRaw: String(r.out_raw),
  feeRaw: String(r.fee_raw),
  txHash: r.tx_hash,
  block: r.block_number === null ? null : Number(r.block_number),
});

/** Yields the period's movements in time order, `chunk` rows per read (a long period streams). */
export async function* movements(
  em: EntityManager,
  period: Period,
  chunk = 2000,
): AsyncGenerator<Movement[]> {
  const [union, params] = movementsSql(period);
  let after: [Date, string, string] | null = null;
  for (;;) {
    const keyset = after ? 'where (occurred_at, object_id, kind) > (?::timestamptz, ?::text, ?::text)' : '';
    const rows: Row[] = await em.execute<Row[]>(
      `select * from (${union}) m ${keyset} order by occurred_at, object_id, kind limit ${chunk}`,
      after ? [...params, ...after] : params,
    );
    if (rows.length === 0) return;
    yield rows.map(toMovement);
    if (rows.length < chunk) return;
    const last = rows.at(-1)!;
    after = [new Date(last.occurred_at), last.object_id, last.kind];
  }
}

/**
 * Per network and token: the opening position (every movement before the period: in − out), what
 * came in, the fees, what went out, and the closing position (opening + in − out).
 */
export async function totals(
  em: EntityManager,
  networks: NetworkRegistry,
  period: Period,
): Promise<ReportTotal[]> {
  const [before, beforeParams] = movementsSql({ ...period, from: new Date(0), to: period.from });
  const [during, duringParams] = movementsSql(period);
  const rows = await em.execute<
    {
      network: string;
      token: string;
      opening: string;
      in_raw: string;
      fee_raw: string;
      out_raw: string;
      n: string;
    }[]
  >(
    `select network, token,
            sum(case when part = 0 then in_raw - out_raw else 0 end)::text as opening,
            sum(case when part = 1 then in_raw else 0 end)::text as in_raw,
            sum(case when part = 1 then fee_raw else 0 end)::text as fee_raw,
            sum(case when part = 1 then out_raw else 0 end)::text as out_raw,
            count(*) filter (where part = 1)::text as n
       from (select 0 as part, b.* from (${before}) b union all select 1, d.* from (${during}) d) m
      group by network, token order by network, token`,
    [...beforeParams, ...duringParams],
  );
  return rows.map((r) => ({
    network: r.network,
    token: r.token,
    decimals: networks.token(r.network, r.token)?.decimals ?? 0,
    openingRaw: r.opening,
    inRaw: r.in_raw,
    feeRaw: r.fee_raw,
    outRaw: r.out_raw,
    closingRaw: (BigInt(r.opening) + BigInt(r.in_raw) - BigInt(r.out_raw)).toString(),
    movements: Number(r.n),
  }));
}

/** Base units as whole units of the token (exact; a negative position keeps its sign). */
export function units(raw: string, decimals: number): string {
  const value = BigInt(raw);
  const text = formatUnits(value < 0n ? -value : value, decimals);
  return value < 0n ? `-${text}` : text;
}
