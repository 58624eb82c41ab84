import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { confirmationsFor } from '../../chains/networks.ts';
import type { EntityManager } from '../../db/orm.ts';
import { findPage, type Page, setFilters } from '../../db/pagination.ts';
import { AppError, notFound, validation } from '../../errors.ts';
import { formatUnits, parseUnits } from '../../money.ts';
import type { SessionChains } from '../session/session.chain.ts';
import { SESSIONS_STREAM } from '../session/session.consumer.ts';
import { SNAPSHOT_COLUMNS, type SnapshotRow, snapshotOf } from '../session/session.snapshot.ts';
import { transitionSessions } from '../session/session.transition.ts';
import { type Resolution, UnmatchedPayment } from './stray.entity.ts';

/**
 * Operators' handling of stray payments (router payments the follower could not give to a session
 * by itself): the listing, attaching one to a session, marking one refunded. Each decision is one
 * transaction that writes a `payment_resolutions` row keyed by the payment, so the database decides
 * which of two racing decisions stands; an attach also claims the payment through the session's
 * unique `payment_id` and the session transition engine, and the follower completes the session at
 * its confirmation depth like any other payment (webhook included).
 */

/** Filter of the operators' `unmatchedPayments` listing; every field narrows it. */
export interface StrayFilter {
  network?: string | null;
  merchantId?: string | null;
  /** The paying wallet (any case). */
  payer?: string | null;
  /** `unmatched` (the default), `attached` or `refunded`. */
  state?: 'unmatched' | Resolution | null;
  /** Seen by the follower at least this many minutes ago. */
  minAgeMinutes?: number | null;
  /** Seen by the follower at most this many minutes ago. */
  maxAgeMinutes?: number | null;
}

/** A listed payment, with its amount in whole units where the token is configured. */
export interface StrayPaymentView extends UnmatchedPayment {
  tokenSymbol: string | null;
  amount: string | null;
}

const MINUTE = 60_000;

export class StrayPaymentService {
  constructor(readonly deps: { chains: SessionChains; now?: () => Date }) {}

  /** Newest first, keyset-paginated by (created_at, id). */
  async list(em: EntityManager, filter: StrayFilter, first: number, after?: string | null) {
    const now = this.deps.now?.() ?? new Date();
    const seen: Record<string, Date> = {};
    if (filter.minAgeMinutes != null) seen.$lte = new Date(now.getTime() - filter.minAgeMinutes * MINUTE);
    if (filter.maxAgeMinutes != null) seen.$gte = new Date(now.getTime() - filter.maxAgeMinutes * MINUTE);
    const where = setFilters({
      network: filter.network,
      merchantId: filter.merchantId,
      payer: filter.payer?.toLowerCase(),
      state: filter.state ?? 'unmatched',
      createdAt: Object.keys(seen).length > 0 ? seen : null,
    });
    const page = await findPage(em, UnmatchedPayment, where, { first, after });
    return { ...page, nodes: page.nodes.map((p) => this.view(p)) } satisfies Page<StrayPaymentView>;
  }

  /** One payment of the listing (any state); not_found when the follower matched it itself or it does not exist. */
  async get(em: EntityManager, paymentId: string): Promise<StrayPaymentView> {
    const row = /^\d{1,19}$/.test(paymentId) ? await em.findOne(UnmatchedPayment, { id: paymentId }) : null;
    if (!row) throw notFound(`unmatched payment ${paymentId}`);
    return this.view(row);
  }

  /**
   * Attaches an unmatched payment to an open session without a payment: the session moves to
   * `processing` holding it, and completes at the payment's confirmation depth (the follower's
   * rule, `payment.completed` then). The payment must have reached the session's pinned payee in the
   * session's token, at least its amount.
   */
  async attach(
    em: EntityManager,
    operatorId: string,
    paymentId: string,
    sessionId: string,
    note?: string | null,
  ) {
    try {
      await em.transactional(async (tx) => {
        const payment = await this.lockOpen(tx, paymentId);
        const [row] = await tx.execute<(SnapshotRow & { payment_id: string | null })[]>(
          `select ${SNAPSHOT_COLUMNS}, s.payment_id from sessions s where s.id = ? for update`,
          [sessionId],
        );
        if (!row) throw notFound(`session ${sessionId}`);
        if (row.payment_id !== null)
          throw new AppError('conflict', `session ${sessionId} already has its payment (${row.status})`);
        if (row.status !== 'pending' && row.status !== 'processing')
          throw new AppError(
            'conflict',
            `session ${sessionId} is ${row.status}; only an open session takes a payment`,
          );
        const session = snapshotOf(row);
        this.checkPays(payment, session);
        await this.decide(tx, payment.id, 'attached', operatorId, note, sessionId);
        // Locked above: the change cannot be stale; the unique payment_id still decides against a racing claim.
        await transitionSessions(
          tx,
          [
            {
              kind: 'payment_found',
              session,
              set: { status: 'processing', step: 'processing', paymentId: Number(payment.id) },
              txHash: payment.tx_hash,
              by: { cause: 'operator', actor: operatorId },
            },
          ],
          'raise',
        );
      });
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException)
        throw new AppError('conflict', `payment ${paymentId} already pays a session`, undefined, {
          cause: error,
        });
      throw error;
    }
    return this.get(em.fork(), paymentId);
  }

  /** Records that the payment was sent back to its payer (outside the service); it leaves the listing. */
  async markRefunded(em: EntityManager, operatorId: string, paymentId: string, note?: string | null) {
    await em.transactional(async (tx) => {
      const payment = await this.lockOpen(tx, paymentId);
      await this.decide(tx, payment.id, 'refunded', operatorId, note, null);
    });
    return this.get(em.fork(), paymentId);
  }

  /** The payment, locked, if it is a router payment no session holds and no operator decided on yet. */
  private async lockOpen(tx: EntityManager, paymentId: string): Promise<PaymentRow> {
    if (!/^\d{1,19}$/.test(paymentId)) throw notFound(`unmatched payment ${paymentId}`);
    const [payment] = await tx.execute<PaymentRow[]>(
      `select p.id::text as id, p.network, p.tx_hash, p.token, p.recipient, p.amount_raw::text as amount_raw,
              (select c.id from sessions c where c.payment_id = p.id) as claimed_by,
              (select r.action from payment_resolutions r where r.payment_id = p.id) as resolution,
              p.block_number, (select k.block_number from chain_cursors k where k.network = p.network and k.stream = ?) as cursor
         from payments p where p.id = ? and p.kind = 'router_payment' for update of p`,
      [SESSIONS_STREAM, paymentId],
    );
    if (!payment) throw notFound(`unmatched payment ${paymentId}`);
    if (payment.resolution)
      throw new AppError('conflict', `payment ${paymentId} is already ${payment.resolution}`);
    if (payment.claimed_by)
      throw new AppError('conflict', `payment ${paymentId} already pays session ${payment.claimed_by}`);
    this.checkConfirmed(payment);
    return payment;
  }

  /**
   * A decision waits until the payment is as deep as a session's payment of its amount must be (the
   * sessions stream's processed head): a decision on a transfer a reorganisation may still take away
   * would vanish with it, and a refunded payment mined again would show as unmatched once more.
   */
  private checkConfirmed(payment: PaymentRow): void {
    const network = this.deps.chains.network(payment.network);
    const token = network.tokens.find((t) => t.address.toLowerCase() === payment.token);
    const needed = token
      ? confirmationsFor(network, formatUnits(BigInt(payment.amount_raw), token.decimals))
      : Math.max(...network.confirmations.map((t) => t.blocks));
    const depth = payment.cursor === null ? 0 : Number(payment.cursor) - Number(payment.block_number) + 1;
    if (depth < needed)
      throw new AppError(
        'unavailable',
        `payment is ${depth} of ${needed} confirmations deep; retry once it is confirmed`,
      );
  }

  /** The decision row; its primary key (the payment) refuses a second decision whatever the race. */
  private async decide(
    tx: EntityManager,
    paymentId: string,
    action: Resolution,
    operatorId: string,
    note: string | null | undefined,
    sessionId: string | null,
  ): Promise<void> {
    const inserted = await tx.execute<{ ok: number }[]>(
      `insert into payment_resolutions (payment_id, action, session_id, operator_id, note, created_at)
       values (?, ?, ?, ?, ?, now()) on conflict (payment_id) do nothing returning 1 as ok`,
      [paymentId, action, sessionId, operatorId, note || null],
    );
    if (inserted.length === 0)
      throw new AppError('conflict', `payment ${paymentId} was decided on meanwhile`);
  }

  /** Refuses (validation, naming the difference) a payment that does not pay the session in full. */
  private checkPays(payment: PaymentRow, session: ReturnType<typeof snapshotOf>): void {
    if (session.network !== payment.network)
      throw validation(
        `session_id: the session is on ${session.network ?? 'no network yet'}, the payment on ${payment.network}`,
      );
    const network = this.deps.chains.network(payment.network);
    const token = network.tokens.find((t) => t.symbol === session.token);
    if (!token || !session.amount) throw validation('session_id: the session has no coin or amount yet');
    if (token.address.toLowerCase() !== payment.token)
      throw validation(`session_id: the payment is not in the session's coin (${token.symbol})`);
    if (session.payee !== payment.recipient)
      throw validation("session_id: the payment did not reach the session's merchant wallet");
    if (BigInt(payment.amount_raw) < parseUnits(session.amount, token.decimals))
      throw validation(
        `session_id: the payment is less than the session amount (${session.amount} ${token.symbol})`,
      );
  }

  private view(row: UnmatchedPayment): StrayPaymentView {
    const network = this.deps.chains.sessionNetworks().find((n) => n.id === row.network);
    const token = network?.tokens.find((t) => t.address.toLowerCase() === row.token);
    return Object.assign(row, {
      tokenSymbol: token?.symbol ?? null,
      amount: token ? formatUnits(BigInt(row.amountRaw), token.decimals) : null,
    });
  }
}

interface PaymentRow {
  id: string;
  network: string;
  tx_hash: string;
  token: string;
  recipient: string;
  amount_raw: string;
  claimed_by: string | null;
  resolution: Resolution | null;
  block_number: string;
  /** The sessions stream's last processed block on the payment's network. */
  cursor: string | null;
}
