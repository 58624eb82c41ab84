import { defineEntity, p } from '@mikro-orm/core';
import { Interface } from 'ethers';
import type { EntityManager } from '../../db/orm.ts';
import { createdAt, updatedAt } from '../../db/timestamps.ts';
import { DepositAddress } from './deposit.entity.ts';

/**
 * Why a forwarder's sweep keeps failing, per (forwarder, token): a failure backs the pair off
 * exponentially, and after {@link SWEEP_PARK_AFTER} failures the pair is parked with its reason until
 * an operator retries it. A blacklisted forwarder (USDT blacklists tainted addresses) would otherwise
 * be re-sent every sweep forever, spending the relayer's gas and, with more of them than a sweep
 * carries, keeping every healthy forwarder of the network out of the sweeps. A success forgets the hold.
 */

/** First wait after a failure; doubled by each further one. */
export const SWEEP_RETRY_BASE_MS = 5 * 60_000;
/** Longest wait between two attempts. */
export const SWEEP_RETRY_MAX_MS = 6 * 3_600_000;
/** Failures in a row after which a pair is parked for an operator. */
export const SWEEP_PARK_AFTER = 5;

/** The wait after the `failures`-th failure in a row. */
export const sweepBackoffMs = (failures: number): number =>
  Math.min(SWEEP_RETRY_MAX_MS, SWEEP_RETRY_BASE_MS * 2 ** Math.max(0, failures - 1));

export const SweepHoldSchema = defineEntity({
  name: 'SweepHold',
  tableName: 'sweep_holds',
  uniques: [{ properties: ['address', 'tokenAddress'] }],
  indexes: [{ properties: ['network', 'parkedAt'] }],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    address: () => p.manyToOne(DepositAddress).deleteRule('cascade'),
    network: p.string().length(32),
    /** Token contract, lowercase `0x` form. */
    tokenAddress: p.string().length(42),
    /** Failed sweeps in a row (final ones: a failure is read at a final block). */
    failures: p.integer(),
    /** The last failure's revert, decoded where the error is known (e.g. `Blacklisted(0x…)`). */
    lastError: p.text(),
    /** When the pair may be swept again; null while parked, or due now (an operator's retry). */
    retryAt: p.datetime().nullable(),
    /** Set once the pair failed {@link SWEEP_PARK_AFTER} times: swept again only after an operator retry. */
    parkedAt: p.datetime().nullable(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
});
export class SweepHold extends SweepHoldSchema.class {}
SweepHoldSchema.setClass(SweepHold);

/** Errors a forwarder's sweep may revert with: the forwarder's own, then the tokens' commonest. */
const ERRORS = new Interface([
  'error InsufficientBalance(address token, uint256 balance, uint256 amount)',
  'error TransferFailed(address token, address to, uint256 value)',
  'error OnlyFactory()',
  'error Blacklisted(address account)',
  'error Error(string message)',
  'error Panic(uint256 code)',
]);

/** A `SweepFailed` reason, decoded: a readable text, and whether the forwarder held nothing at all. */
export function sweepFailure(reason: string, token: string): { text: string; drained: boolean } {
  if (!reason || reason === '0x') return { text: 'reverted without a reason (0x)', drained: false };
  try {
    const error = ERRORS.parseError(reason);
    if (error) {
      const args = error.args.map((a) => (typeof a === 'string' ? a.toLowerCase() : String(a)));
      // The forwarder's own check (the token's error of that name names the account, not the token).
      const drained =
        error.name === 'InsufficientBalance' && args[0] === token.toLowerCase() && args[1] === '0';
      return { text: `${error.name}(${args.join(', ')})`, drained };
    }
  } catch {
    // Not one we know: the raw data.
  }
  return { text: reason.slice(0, 500), drained: false };
}

/**
 * Records a final failure of each pair: one more failure in a row, the next attempt after the backoff,
 * parked once there were {@link SWEEP_PARK_AFTER}.
 */
export async function holdFailed(
  em: EntityManager,
  network: string,
  failed: readonly { addressId: string; token: string; error: string }[],
  now: Date,
): Promise<void> {
  for (const f of failed) {
    const [row] = await em.execute<{ failures: number }[]>(
      `insert into sweep_holds (address_id, network, token_address, failures, last_error, created_at, updated_at)
       values (?, ?, ?, 1, ?, ?, ?)
       on conflict (address_id, token_address)
         do update set failures = sweep_holds.failures + 1, last_error = excluded.last_error, updated_at = excluded.updated_at
       returning failures`,
      [f.addressId, network, f.token, f.error, now, now],
    );
    const failures = row!.failures;
    const parked = failures >= SWEEP_PARK_AFTER;
    await em.execute(
      `update sweep_holds set retry_at = ?, parked_at = ? where address_id = ? and token_address = ?`,
      [
        parked ? null : new Date(now.getTime() + sweepBackoffMs(failures)),
        parked ? now : null,
        f.addressId,
        f.token,
      ],
    );
  }
}

/** The pairs of a sweep that were swept (by it, or outside it) are healthy again. */
export async function releaseHolds(em: EntityManager, sweepId: string): Promise<void> {
  await em.execute(
    `delete from sweep_holds h using deposits d
      where d.sweep_id = ? and d.swept_at is not null
        and h.address_id = d.address_id and h.token_address = d.token_address`,
    [sweepId],
  );
}

/** A held pair as operators see it. */
export interface SweepHoldRow {
  network: string;
  /** Forwarder, lowercase `0x` form. */
  address: string;
  merchantId: string;
  playerId: string;
  tokenAddress: string;
  failures: number;
  lastError: string;
  retryAt: Date | null;
  parkedAt: Date | null;
  updatedAt: Date;
  /** Credited deposits of the pair waiting for a sweep. */
  deposits: number;
  /** Their credited total, base units. */
  creditedRaw: string;
}

const HOLD_ROWS = `select h.network, a.address, a.merchant_id as "merchantId", a.player_id as "playerId",
        h.token_address as "tokenAddress", h.failures, h.last_error as "lastError", h.retry_at as "retryAt",
        h.parked_at as "parkedAt", h.updated_at as "updatedAt",
        (select count(*)::int from deposits d where d.address_id = h.address_id and d.token_address = h.token_address
            and d.status = 'credited' and d.swept_at is null) as deposits,
        (select coalesce(sum(d.credited_raw), 0)::text from deposits d where d.address_id = h.address_id
            and d.token_address = h.token_address and d.status = 'credited' and d.swept_at is null) as "creditedRaw"
   from sweep_holds h join deposit_addresses a on a.id = h.address_id`;

/** Held pairs, parked first, then by their next attempt (at most 500). */
export async function listHolds(
  em: EntityManager,
  filter: { network?: string | null; parked?: boolean | null },
): Promise<SweepHoldRow[]> {
  const rows = await em.execute<SweepHoldRow[]>(
    `${HOLD_ROWS}
      where (?::text is null or h.network = ?) and (?::boolean is null or (h.parked_at is not null) = ?)
      order by h.parked_at nulls last, h.retry_at, h.id limit 500`,
    [filter.network ?? null, filter.network ?? null, filter.parked ?? null, filter.parked ?? null],
  );
  return rows.map(dated);
}

/**
 * An operator's retry: the pair is swept with the next sweep and its failures count from zero again
 * (its last reason stays until a sweep succeeds). Returns the hold, or undefined when there is none.
 */
export async function retryHold(
  em: EntityManager,
  pair: { network: string; address: string; tokenAddress: string },
): Promise<SweepHoldRow | undefined> {
  const updated = await em.execute<{ id: string }[]>(
    `update sweep_holds h set failures = 0, parked_at = null, retry_at = null, updated_at = now()
       from deposit_addresses a
      where a.id = h.address_id and h.network = ? and a.address = ? and h.token_address = ?
      returning h.id::text`,
    [pair.network, pair.address, pair.tokenAddress],
  );
  if (updated.length === 0) return undefined;
  const [row] = await em.execute<SweepHoldRow[]>(`${HOLD_ROWS} where h.id = ?`, [updated[0]!.id]);
  return row && dated(row);
}

// Raw rows carry timestamps as the driver gives them.
const dated = (r: SweepHoldRow): SweepHoldRow => ({
  ...r,
  retryAt: r.retryAt && new Date(r.retryAt),
  parkedAt: r.parkedAt && new Date(r.parkedAt),
  updatedAt: new Date(r.updatedAt),
});
