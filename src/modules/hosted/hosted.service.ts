import type { Config } from '../../config.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, notFound, unavailable, validation } from '../../errors.ts';
import { Payment } from '../ledger/payment.entity.ts';
import { Merchant } from '../merchant/merchant.entity.ts';
import { Session } from '../session/session.entity.ts';
import type { SessionBy } from '../session/session.history.ts';
import { normaliseLanguage } from '../session/session.i18n.ts';
import type { InitRequest } from '../session/session.schemas.ts';
import { entitySnapshot, type SessionService } from '../session/session.service.ts';
import { transitionSessions } from '../session/session.transition.ts';
import type { StepResponse } from '../session/session.view.ts';
import { hashHostedToken, hostedUrl, newHostedToken } from './hosted.token.ts';

/** `POST /v1/hpp/sessions` input: the cashier init fields plus `return_url` (section 4.6). */
export type HostedCreateRequest = InitRequest & { returnUrl?: string | null };

/** The hosted link (section 2.2), in GraphQL spelling. */
export interface HostedLink {
  session: string;
  token: string;
  url: string;
  expiresAt: Date;
}

/** What the page shows around the steps (its header and its redirect), read by the token alone. */
export interface HostedLinkInfo {
  session: string;
  /** `en`, `ru` or `es`: the page's own texts follow the components' language. */
  language: string;
  network: string | null;
  token: string | null;
  amount: string | null;
  /** Link expiry; it only applies while no payment is reported or found (D12). */
  expiresAt: Date | null;
  /** Whether a payment is reported or found: the link no longer expires, the page shows the outcome. */
  paid: boolean;
  returnUrl: string | null;
  /** Who the player pays: the merchant's display name, else its name. */
  merchantName: string;
  /** The merchant's own reference of the order (`external_order_id`), if it gave one. */
  orderReference: string | null;
  /** The payment's transaction once found on chain, else the one the player reported. */
  txHash: string | null;
}

/** After a session ended with a payment, its status stays readable this long (D12). */
export const ENDED_READABLE_MS = 24 * 60 * 60_000;

/** Attempts of a hosted create against a session that keeps changing before it answers 503. */
const CREATE_ATTEMPTS = 3;

/**
 * Hosted payment links (D12): a create opens (or re-opens) a deposit session through the cashier's own
 * init and issues a fresh token; step and status run the same step machine, scoped to the token's
 * session. Knows nothing of HTTP or GraphQL.
 */
export class HostedService {
  constructor(
    readonly deps: {
      config: Pick<Config, 'hppLinkTtlMinutes' | 'publicBaseUrl'>;
      sessions: SessionService;
    },
  ) {}

  /** This process's own address (`http://localhost:PORT`), used in links when PUBLIC_BASE_URL is unset. */
  private listening = 'http://localhost:8080';

  /** Called by the HTTP server once it listens. */
  useListeningAddress(url: string): void {
    this.listening = `http://localhost:${new URL(url).port}`;
  }

  /** `PUBLIC_BASE_URL`, or this process's own address. */
  baseUrl(): string {
    return this.deps.config.publicBaseUrl ?? this.listening;
  }

  /**
   * Opens a session with the cashier's prefill and idempotency rules and issues its link. A repeat of
   * the same order with the same parameters (language and return_url aside: the latest wins) replaces
   * the token, so the earlier one stops working; an order no longer pending, or with a payment
   * reported or found, is 409. `by`: who asked (the merchant's API, or an operator), for the history.
   */
  async create(
    em: EntityManager,
    merchantId: string,
    input: HostedCreateRequest,
    by: SessionBy = { cause: 'merchant_api' },
  ): Promise<HostedLink> {
    const { returnUrl, ...init } = input;
    const existing = init.externalOrderId
      ? await em.fork().findOne(Session, { merchant: merchantId, externalOrderId: init.externalOrderId })
      : null;
    // Language is not an idempotency parameter of a hosted create: compare with the stored one.
    const opened = await this.deps.sessions.init(
      em,
      merchantId,
      { ...init, language: existing ? existing.language : init.language },
      by,
    );
    for (let attempt = 1; ; attempt++) {
      const session = await em.fork().findOneOrFail(Session, { id: opened.session, merchant: merchantId });
      if (session.status !== 'pending' || session.reportedTxHash || session.payment) {
        throw new AppError(
          'conflict',
          'external_order_id: the order is no longer pending (a payment is reported or on chain); use a new reference',
        );
      }
      const { token, hash } = newHostedToken();
      const expiresAt = new Date(
        this.deps.sessions.clock().getTime() + this.deps.config.hppLinkTtlMinutes * 60_000,
      );
      const { applied } = await em.transactional((tx) =>
        transitionSessions(
          tx,
          [
            {
              kind: 'hosted_link',
              session: entitySnapshot(session),
              by,
              set: {
                hostedTokenHash: hash,
                returnUrl: returnUrl || null,
                language: normaliseLanguage(input.language),
                hostedExpiresAt: expiresAt,
              },
            },
          ],
          'report',
        ),
      );
      if (applied.has(session.id)) {
        return { session: session.id, token, url: hostedUrl(this.baseUrl(), token), expiresAt };
      }
      if (attempt >= CREATE_ATTEMPTS) throw unavailable('the session is changing too fast; retry shortly');
    }
  }

  /**
   * The session a token opens, under D12: missing token → 400, no session carries it → 404, link past
   * its expiry while the order is pending with no payment reported or found → 410; once a payment is
   * reported or found, readable until 24 hours after the session ended.
   */
  async resolve(em: EntityManager, token: string | null | undefined): Promise<Session> {
    if (!token) throw validation('token: required');
    const session = await em.fork().findOne(Session, { hostedTokenHash: hashHostedToken(token) });
    if (!session) throw notFound('session');
    const now = this.deps.sessions.clock().getTime();
    const paid = Boolean(session.reportedTxHash || session.payment);
    if (paid) {
      if (session.settledAt && session.settledAt.getTime() + ENDED_READABLE_MS <= now) throw expired();
    } else if (session.hostedExpiresAt && session.hostedExpiresAt.getTime() <= now) {
      throw expired();
    }
    return session;
  }

  /** `hpp/status`: the cashier status of the token's session. */
  async status(em: EntityManager, token: string | null | undefined): Promise<StepResponse> {
    const session = await this.resolve(em, token);
    return this.deps.sessions.status(em, session.merchant.id, session.id);
  }

  /** `hpp/link`: what the page shows around the steps, under the same token rules as status. */
  async link(em: EntityManager, token: string | null | undefined): Promise<HostedLinkInfo> {
    const session = await this.resolve(em, token);
    const read = em.fork();
    const [merchant, payment] = await Promise.all([
      read.findOneOrFail(Merchant, { id: session.merchant.id }),
      session.payment ? read.findOne(Payment, { id: session.payment.id }) : null,
    ]);
    return {
      session: session.id,
      language: normaliseLanguage(session.language),
      network: session.network ?? session.prefillNetwork ?? null,
      token: session.token ?? session.prefillToken ?? null,
      amount: session.amount ?? session.prefillAmount ?? null,
      expiresAt: session.hostedExpiresAt ?? null,
      paid: Boolean(session.reportedTxHash || session.payment),
      returnUrl: session.returnUrl ?? null,
      merchantName: merchant.displayName || merchant.name,
      orderReference: session.externalOrderId ?? null,
      txHash: payment?.txHash ?? session.reportedTxHash ?? null,
    };
  }

  /** `hpp/step`: one action of the step machine on the token's session. */
  async step(
    em: EntityManager,
    input: { token?: string | null; action: string; value?: string | null },
  ): Promise<StepResponse> {
    const session = await this.resolve(em, input.token);
    return this.deps.sessions.step(
      em,
      session.merchant.id,
      { session: session.id, action: input.action, value: input.value },
      { cause: 'player' },
    );
  }
}

function expired(): AppError {
  return new AppError('expired', 'the link has expired; ask the merchant for a new one');
}
