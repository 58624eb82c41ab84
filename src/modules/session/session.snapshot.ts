import type { OrderStatus, Step } from './session.entity.ts';
import type { SessionSnapshot } from './session.transition.ts';

/** The columns of a {@link SessionSnapshot}, for queries of `sessions s`. */
export const SNAPSHOT_COLUMNS = `s.id, s.merchant_id, s.version, s.status, s.step, s.network, s.token, s.amount,
  s.player_id, s.external_order_id, s.callback_url, s.order_ref, s.payee, s.reported_tx_hash, s.reported_at,
  s.deadline, s.expires_at`;

export interface SnapshotRow {
  id: string;
  merchant_id: string;
  version: number;
  status: OrderStatus;
  step: Step;
  network: string | null;
  token: string | null;
  amount: string | null;
  player_id: string | null;
  external_order_id: string | null;
  callback_url: string | null;
  order_ref: string;
  payee: string | null;
  reported_tx_hash: string | null;
  reported_at: Date | string | null;
  deadline: string | number | null;
  expires_at: Date | string;
}

/** A snapshot plus what the follower matches and expires by. */
export interface FollowedSession extends SessionSnapshot {
  payee: string | null;
  reportedTxHash: string | null;
  reportedAt: Date | null;
  deadline: number | null;
  expiresAt: Date;
}

export function snapshotOf(row: SnapshotRow): FollowedSession {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    version: Number(row.version),
    status: row.status,
    step: row.step,
    network: row.network,
    token: row.token,
    amount: row.amount,
    playerId: row.player_id,
    externalOrderId: row.external_order_id,
    callbackUrl: row.callback_url,
    orderRef: row.order_ref,
    payee: row.payee,
    reportedTxHash: row.reported_tx_hash,
    reportedAt: row.reported_at === null ? null : new Date(row.reported_at),
    deadline: row.deadline === null ? null : Number(row.deadline),
    expiresAt: new Date(row.expires_at),
  };
}
