import { keccak256, toUtf8Bytes } from 'ethers';
import type { Config } from '../../config.ts';
import type { EntityManager } from '../../db/orm.ts';
import { findPage, listingWhere } from '../../db/pagination.ts';
import { publish } from '../../db/pubsub.ts';
import type { SqlPool } from '../../db/sql.ts';
import { AppError, notFound, unavailable, validation } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import { parseUnits } from '../../money.ts';
import { SettlementWallet } from '../merchant/merchant.entity.ts';
import type { MerchantService } from '../merchant/merchant.service.ts';
import { canonicalAmount } from './session.amount.ts';
import type { SessionChains, SessionNetwork } from './session.chain.ts';
import { Session, type SessionView } from './session.entity.ts';
import { recordHistory, type SessionBy } from './session.history.ts';
import { normaliseLanguage } from './session.i18n.ts';
import { startStep } from './session.machine.ts';
import type { InitRequest, StepRequest } from './session.schemas.ts';
import { SessionStatusReads } from './session.status.ts';
import { planAction, type StepDeps } from './session.steps.ts';
import { type SessionSnapshot, sessionChanged, transitionSessions } from './session.transition.ts';
import {
  type CoinOffer,
  renderStep,
  type SessionState,
  type StepResponse,
  type ViewInputs,
} from './session.view.ts';

/** D5: `order_ref` = keccak256 of the UTF-8 bytes of the session id. */
export const orderRefOf = (sessionId: string): string => keccak256(toUtf8Bytes(sessionId));

/** Filter of the operators' `sessions` query. */
export interface SessionFilter {
  merchantId?: string | null;
  status?: string | null;
  network?: string | null;
  externalOrderId?: string | null;
  /** One of: session id, external order id, player id, payer wallet, reported or paying transaction hash. */
  search?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
}

/**
 * Deposit sessions driven through the step machine (sections 3.2, 4.3-4.5): the merchant REST API
 * and operator GraphQL call these. Chain changes (payment seen, confirmed, reverted, expired) are the
 * listener's (session.listener.ts).
 */
export class SessionService implements StepDeps {
  constructor(
    readonly deps: {
      config: Pick<Config, 'sessionTtlMinutes'>;
      chains: SessionChains;
      merchants: Pick<MerchantService, 'walletNetworks'>;
      /** The hot path's prepared statements (the status read). */
      sql: SqlPool;
      now?: () => Date;
    },
  ) {
    this.statusReads = new SessionStatusReads(deps.sql);
  }

  private readonly statusReads: SessionStatusReads;

  get chains(): SessionChains {
    return this.deps.chains;
  }

  /** Wall-clock now (injectable for tests). */
  clock(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * Opens a session (section 4.3). A repeated `external_order_id` returns the original or is 409.
   * `by`: who opened it, the first row of its history (written with it, in one transaction).
   */
  async init(
    em: EntityManager,
    merchantId: string,
    input: InitRequest,
    by: SessionBy = { cause: 'merchant_api' },
  ): Promise<StepResponse> {
    const prefill = await this.checkPrefill(em, merchantId, input);
    const id = newId('session');
    const row = {
      id,
      merchant: merchantId,
      externalOrderId: input.externalOrderId ?? null,
      playerId: input.playerId ?? null,
      callbackUrl: input.callbackUrl || null,
      language: normaliseLanguage(input.language),
      prefillNetwork: prefill.network,
      prefillToken: prefill.token,
      prefillAmount: prefill.amount,
      network: prefill.network,
      token: prefill.token,
      amount: prefill.amount,
      payee: prefill.payee,
      step: startStep(prefill),
      status: 'pending' as const,
      orderRef: orderRefOf(id),
      expiresAt: new Date(this.clock().getTime() + this.deps.config.sessionTtlMinutes * 60_000),
    };
    // Its history starts with it; and a new session is announced like every later change, so live
    // lists show it at once.
    const created = async (tx: EntityManager) => {
      await recordHistory(tx, [
        {
          sessionId: id,
          version: 0,
          kind: 'created',
          by,
          fromStep: null,
          toStep: row.step,
          fromStatus: null,
          toStatus: row.status,
        },
      ]);
      await publish(tx, sessionChanged, [{ id, merchantId }]);
    };
    if (!row.externalOrderId) {
      const session = await em.transactional(async (tx) => {
        const session = tx.create(Session, row);
        await tx.flush();
        await created(tx);
        return session;
      });
      return this.render(em, merchantId, session);
    }
    // Concurrent identical inits: the unique (merchant, external_order_id) index lets exactly one
    // insert through; the others insert nothing and read the winner (never read-then-write).
    await em.transactional(async (tx) => {
      const inserted = await tx
        .createQueryBuilder(Session)
        .insert({ ...row, createdAt: this.clock(), updatedAt: this.clock() })
        .onConflict(['merchant', 'externalOrderId'])
        .ignore()
        .execute('run');
      if (inserted.affectedRows > 0) await created(tx);
    });
    const session = await em
      .fork()
      .findOneOrFail(Session, { merchant: merchantId, externalOrderId: row.externalOrderId });
    if (session.id !== id && !sameParameters(session, row)) {
      throw new AppError(
        'conflict',
        'external_order_id: already used for a session with different parameters',
      );
    }
    return this.render(em, merchantId, session);
  }

  /** The session of this merchant, or 404 (another merchant's id looks missing, section 5.1 rule 7). */
  async get(em: EntityManager, merchantId: string | null, id: string): Promise<Session> {
    const session = await em.findOne(Session, merchantId ? { id, merchant: merchantId } : { id }, {
      populate: ['payment'],
    });
    if (!session) throw notFound('session');
    return session;
  }

  /**
   * Read-only status (section 4.5): the hottest call of the API, polled for every open session. The
   * polls arriving together share one prepared SELECT (session.status.ts); nothing is written.
   */
  async status(
    em: EntityManager | (() => EntityManager),
    merchantId: string,
    id: string,
  ): Promise<StepResponse> {
    const state = await this.statusReads.read(id, merchantId);
    if (!state) throw notFound('session');
    return this.render(em, merchantId, state);
  }

  /**
   * Submits one action (section 4.4). The action is planned from the session as read, reading the
   * chain with no row locked, then written in a short transaction guarded by the version it was
   * planned from. When another action or the follower changed the session in between, it is planned
   * again from the fresh row (where it may no longer belong: then `invalid_action`, as if serialised).
   * `by`: who submitted it (the merchant's API for the player, the hosted page, an operator).
   */
  async step(
    em: EntityManager,
    merchantId: string,
    input: StepRequest,
    by: SessionBy = { cause: 'player' },
  ): Promise<StepResponse> {
    for (let attempt = 1; ; attempt++) {
      const session = await this.get(em.fork(), merchantId, input.session);
      const plan = await planAction(this, em, session, input.action, input.value ?? '');
      if (!plan) return this.render(em, merchantId, session);
      const { applied } = await em.transactional((tx) =>
        transitionSessions(tx, [{ kind: 'step', session: entitySnapshot(session), set: plan, by }], 'report'),
      );
      if (applied.has(session.id)) return this.render(em, merchantId, { ...session, ...plan });
      if (attempt >= STEP_ATTEMPTS) throw unavailable('the session is changing too fast; retry shortly');
    }
  }

  /** Operators' listing, newest first, keyset-paginated by (created_at, id). */
  async list(em: EntityManager, filter: SessionFilter, first: number, after?: string | null) {
    const where = listingWhere(
      {
        merchant: filter.merchantId,
        status: filter.status,
        network: filter.network,
        externalOrderId: filter.externalOrderId,
      },
      filter,
      (term, lower) => [
        { id: term },
        { externalOrderId: term },
        { playerId: term },
        { wallet: lower },
        { reportedTxHash: lower },
        { payment: { txHash: lower } },
      ],
    );
    return findPage(em, Session, where, { first, after }, ['payment']);
  }

  /** The StepResponse of a session, from the database alone (the chain values its step shows were stored). */
  /** `em` may be a function forking one: only the network picker reads the database. */
  async render(
    em: EntityManager | (() => EntityManager),
    merchantId: string,
    session: SessionState,
  ): Promise<StepResponse> {
    const inputs: ViewInputs = {};
    if (session.step === 'network_select') inputs.networks = await this.offeredNetworks(em, merchantId);
    if (session.network) {
      const network = this.deps.chains.network(session.network);
      inputs.network = network;
      if (session.step === 'token_select') inputs.offers = storedOffers(network, session.view);
      if (session.step === 'enter_amount' && session.view?.balance !== undefined)
        inputs.balance = BigInt(session.view.balance);
      if (session.step === 'awaiting_payment' && session.payee) inputs.merchantWallet = session.payee;
    }
    return renderStep(session, inputs);
  }

  /**
   * Networks the merchant can take a session deposit on: a router and a settlement wallet there.
   * `em` may be a function forking one: the wallets are cached, and a poll should not pay for a fork.
   */
  async offeredNetworks(
    em: EntityManager | (() => EntityManager),
    merchantId: string,
  ): Promise<SessionNetwork[]> {
    const has = await this.deps.merchants.walletNetworks(em, merchantId);
    return this.deps.chains.sessionNetworks().filter((n) => has.has(n.id));
  }

  /** The settlement wallet the router pays on `network`; `unsupported` when the merchant has none. */
  async settlementWallet(em: EntityManager, merchantId: string, network: SessionNetwork): Promise<string> {
    const wallet = await em.findOne(SettlementWallet, { merchant: merchantId, network: network.id });
    if (!wallet) throw new AppError('unsupported', `network: no settlement wallet for ${network.id}`);
    return wallet.address;
  }

  /** The coin picker: every token with the wallet's balance; unusable ones disabled with a reason. */
  async coinOffers(
    network: SessionNetwork,
    session: Pick<Session, 'wallet' | 'amount'>,
  ): Promise<CoinOffer[]> {
    const balances = await this.deps.chains.balances(network, network.tokens, session.wallet!);
    return network.tokens.map((token, i): CoinOffer => {
      const balance = balances[i] ?? null;
      if (balance === null) return { token, balance, disabled: 'not_supported' };
      let required = 1n;
      if (session.amount) {
        try {
          required = parseUnits(session.amount, token.decimals);
        } catch {
          return { token, balance, disabled: 'precision' };
        }
      }
      return balance < required ? { token, balance, disabled: 'insufficient_balance' } : { token, balance };
    });
  }

  /** Prefill rules of section 4.3: known network and token, token needs network, amount precision (D3). */
  private async checkPrefill(em: EntityManager, merchantId: string, input: InitRequest) {
    if (input.token && !input.network) throw validation('token: requires network');
    let network: SessionNetwork | undefined;
    let decimals: number | undefined;
    let payee: string | null = null;
    if (input.network) {
      network = this.deps.chains.network(input.network);
      // The payee is pinned now: a wallet change while the session is open cannot redirect its payment.
      payee = (await this.settlementWallet(em, merchantId, network)).toLowerCase();
    }
    if (network && input.token) decimals = this.deps.chains.token(network, input.token).decimals;
    return {
      payee,
      network: network?.id ?? null,
      token: input.token ?? null,
      amount: input.amount ? canonicalAmount(input.amount, decimals) : null,
    };
  }
}

const PARAMETERS = [
  'playerId',
  'callbackUrl',
  'language',
  'prefillNetwork',
  'prefillToken',
  'prefillAmount',
] as const;

function sameParameters(
  a: Pick<Session, (typeof PARAMETERS)[number]>,
  b: Pick<Session, (typeof PARAMETERS)[number]>,
) {
  return PARAMETERS.every((key) => (a[key] ?? null) === (b[key] ?? null));
}

/** Attempts of one action before a session that keeps changing answers 503. */
const STEP_ATTEMPTS = 3;

/** The transition guard of a loaded session entity. */
export function entitySnapshot(s: Session): SessionSnapshot {
  return {
    id: s.id,
    merchantId: s.merchant.id,
    version: s.version,
    status: s.status,
    step: s.step,
    network: s.network ?? null,
    token: s.token ?? null,
    amount: s.amount ?? null,
    playerId: s.playerId ?? null,
    externalOrderId: s.externalOrderId ?? null,
    callbackUrl: s.callbackUrl ?? null,
    orderRef: s.orderRef,
  };
}

/** The picker as stored when the step was entered; a token no longer configured is left out. */
function storedOffers(network: SessionNetwork, view: SessionView | null | undefined): CoinOffer[] {
  return (view?.offers ?? []).flatMap((o) => {
    const token = network.tokens.find((t) => t.symbol === o.symbol);
    if (!token) return [];
    return [
      {
        token,
        balance: o.balance === null ? null : BigInt(o.balance),
        ...(o.disabled ? { disabled: o.disabled } : {}),
      },
    ];
  });
}
