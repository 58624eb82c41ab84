import type { EntityManager } from '../../db/orm.ts';
import { findPage, listingWhere } from '../../db/pagination.ts';
import { publish } from '../../db/topic.ts';
import { AppError, notFound } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import { formatUnits } from '../../money.ts';
import type { PayoutChains, PayoutTarget } from './payout.chain.ts';
import { Payout, type PayoutStatus } from './payout.entity.ts';
import { allocateNonce } from './payout.nonce.ts';
import { orderTypedData } from './payout.order.ts';
import type { CreatePayoutRequest } from './payout.schemas.ts';
import { payoutChanged } from './payout.transition.ts';

/** How long a payout order is signable (section 8). */
export const ORDER_TTL_SECONDS = 30 * 60;

/** Filter of the operators' `payouts` query. */
export interface PayoutFilter {
  merchantId?: string | null;
  status?: PayoutStatus | null;
  network?: string | null;
  batchId?: string | null;
  externalId?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  /** One of: payout id, external id, recipient, relay transaction hash. */
  search?: string | null;
}

/** What a payout call answers: the row, plus the order on create (section 2.4). */
export interface PayoutResult {
  payout: Payout;
  typedData?: ReturnType<typeof orderTypedData>;
}

/**
 * Single payouts (sections 4.11 and 4.13): create an order the merchant signs, read it. Authorizing
 * is payout.authorize.ts; the relay and settlement are the relayer's and the chain follower's.
 */
export class PayoutService {
  constructor(
    readonly deps: {
      chains: PayoutChains;
      now?: () => Date;
    },
  ) {}

  get chains(): PayoutChains {
    return this.deps.chains;
  }

  clock(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /**
   * Creates a payout (section 4.11) after checking the payout wallet's balance and allowance. A
   * repeated `external_id` with the same parameters returns the same payout and the same order (D11);
   * with different ones, or used by a batch item, it is 409. Concurrent identical creates insert one.
   */
  async create(em: EntityManager, merchantId: string, input: CreatePayoutRequest): Promise<PayoutResult> {
    const target = await this.chains.target(em, merchantId, { ...input, routerKind: 'single' });
    const amountRaw = this.chains.parseAmount(target.token, input.amount);
    const recipientHex = this.chains.recipientHex(target.network, input.recipient);
    const wanted = {
      network: target.network.id,
      token: target.token.symbol,
      amount: formatUnits(amountRaw, target.token.decimals),
      recipient: canonicalRecipient(target, input.recipient, recipientHex),
      callbackUrl: input.callbackUrl || null,
    };
    if (input.externalId) {
      const existing = await em
        .fork()
        .findOne(Payout, { merchant: merchantId, externalId: input.externalId });
      if (existing) return this.repeated(existing, wanted);
    }
    await this.chains.requireFunds(target, amountRaw);
    const nonce = await allocateNonce(em, this.chains, target);
    const now = this.clock();
    const start = await this.chains.chainNow(target.network, now);
    const row = {
      id: newId('payout'),
      merchant: merchantId,
      externalId: input.externalId ?? null,
      ...wanted,
      tokenAddress: target.token.address,
      amountRaw: amountRaw.toString(),
      recipientHex,
      payer: target.walletHex,
      router: target.router,
      chainId: target.network.chainId,
      nonce: nonce.toString(),
      deadline: start + ORDER_TTL_SECONDS,
      status: 'pending' as const,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    // The unique (merchant, external_id) index lets exactly one of concurrent creates through; the
    // others insert nothing and answer with the winner (never read-then-write).
    await em.transactional(async (tx) => {
      const inserted = await tx
        .createQueryBuilder(Payout)
        .insert(row)
        .onConflict(['merchant', 'externalId'])
        .ignore()
        .execute('run');
      // A new payout is announced like its later transitions, so live lists show it at once.
      if (inserted.affectedRows > 0)
        await publish(tx, payoutChanged, [{ id: row.id, merchantId, batchId: '' }]);
    });
    const payout = await em
      .fork()
      .findOneOrFail(
        Payout,
        row.externalId ? { merchant: merchantId, externalId: row.externalId } : { id: row.id },
      );
    if (payout.id !== row.id) return this.repeated(payout, wanted);
    return { payout, typedData: orderTypedData(payout) };
  }

  /** A repeat of `external_id`: the same payout and order when the parameters match, else 409. */
  private repeated(existing: Payout, wanted: Record<string, string | null>): PayoutResult {
    if (existing.batchId)
      throw new AppError('conflict', 'external_id: already used by an item of a batch payout');
    const differs = Object.entries(wanted).find(
      ([key, value]) => (existing as unknown as Record<string, unknown>)[key] !== value,
    );
    if (differs)
      throw new AppError(
        'conflict',
        `external_id: already used for a payout with a different ${differs[0] === 'callbackUrl' ? 'callback_url' : differs[0]}`,
      );
    return { payout: existing, typedData: orderTypedData(existing) };
  }

  /** The payout of this merchant (any merchant's for operators: null), or 404. */
  async get(em: EntityManager, merchantId: string | null, id: string): Promise<Payout> {
    const payout = await em.findOne(Payout, merchantId ? { id, merchant: merchantId } : { id });
    if (!payout) throw notFound('payout');
    return payout;
  }

  /** Operators' listing, newest first, keyset-paginated by (created_at, id). */
  async list(em: EntityManager, filter: PayoutFilter, first: number, after?: string | null) {
    const where = listingWhere(
      {
        merchant: filter.merchantId,
        status: filter.status,
        network: filter.network,
        batchId: filter.batchId,
        externalId: filter.externalId,
      },
      filter,
      (term, lower) => [
        { id: term },
        { externalId: term },
        { recipient: term },
        { recipientHex: lower },
        { txHash: lower },
      ],
    );
    return findPage(em, Payout, where, { first, after });
  }
}

/** The recipient as stored and shown: checksummed `0x`, or the `T…` address as given on `tron`. */
function canonicalRecipient(target: PayoutTarget, given: string, hex: string): string {
  return target.network.kind === 'tron' ? given : hex;
}
