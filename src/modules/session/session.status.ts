import { Coalescer } from '../../db/coalesce.ts';
import { type SqlPool, statement } from '../../db/sql.ts';
import type { SessionView } from './session.entity.ts';
import type { SessionState } from './session.view.ts';

/**
 * The status read (every poll of every open session): only what rendering needs, by primary key, for
 * every session asked for while the previous reads were on the wire.
 */
const statusRead = statement(
  'session_status_many',
  `SELECT id, merchant_id, step, language, network, token, amount, wallet, deadline, order_ref, payee, view
     FROM sessions WHERE id = ANY($1::text[])`,
);

interface StatusRow extends Record<string, unknown> {
  id: string;
  merchant_id: string;
  step: SessionState['step'];
  language: string;
  network: string | null;
  token: string | null;
  amount: string | null;
  wallet: string | null;
  /** int8 arrives as a string. */
  deadline: string | null;
  order_ref: string;
  payee: string | null;
  view: SessionView | null;
}

/**
 * Reads sessions' rendering state for `/v1/cashier/status`, the hottest call of the API. The polls
 * that arrive together are answered by one prepared `id = ANY(…)` SELECT (src/db/coalesce.ts); no
 * entity is built, nothing is written. Each read is answered by a statement sent after it arrived.
 */
export class SessionStatusReads {
  private readonly reads: Coalescer<string, StatusRow | undefined>;

  constructor(sql: SqlPool) {
    this.reads = new Coalescer(async (ids) => {
      const { rows } = await sql.query<StatusRow>(statusRead, [[...new Set(ids)]]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id));
    });
  }

  /** The session's state when it is this merchant's; undefined otherwise (another's looks missing). */
  async read(id: string, merchantId: string): Promise<SessionState | undefined> {
    const row = await this.reads.load(id);
    if (!row || row.merchant_id !== merchantId) return undefined;
    return {
      id: row.id,
      step: row.step,
      language: row.language,
      network: row.network,
      token: row.token,
      amount: row.amount,
      wallet: row.wallet,
      deadline: row.deadline === null ? null : Number(row.deadline),
      orderRef: row.order_ref,
      payee: row.payee,
      view: row.view,
    };
  }
}
