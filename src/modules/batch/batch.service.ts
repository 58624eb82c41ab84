import { type BatchTypedData, batchKey, buildBatchTypedData } from '../../chains/payout-typed-data.ts';
import type { EntityManager } from '../../db/orm.ts';
import { findPage, setFilters } from '../../db/pagination.ts';
import { publish } from '../../db/topic.ts';
import { AppError, notFound, validation } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import { formatUnits } from '../../money.ts';
import type { PayoutChains, PayoutTarget } from '../payout/payout.chain.ts';
import { Payout } from '../payout/payout.entity.ts';
import { allocateNonce } from '../payout/payout.nonce.ts';
import { ORDER_TTL_SECONDS } from '../payout/payout.service.ts';
import { payoutChanged } from '../payout/payout.transition.ts';
import { PayoutBatch } from './batch.entity.ts';
import type { BatchStatus, CreateBatchRequest } from './batch.schemas.ts';

/**
 * Batch payouts (sections 4.17 and 4.19): create one signed order for up to 100 recipients, read it
 * with its items. Every item is a payout row of its own (`po_` id, own status and webhook); the
 * batch's status is derived from the items. Authorizing is batch.authorize.ts.
 */

/** Gas the router spends per item at most (a fresh recipient's balance slot, events) and per call. */
const GAS_PER_ITEM = 75_000n;
const GAS_PER_CALL = 120_000n;

/** A batch with its items, ordered by index. */
export interface BatchView {
  batch: PayoutBatch;
  items: Payout[];
  status: BatchStatus;
  typedData?: BatchTypedData;
}

/** Section 3.5: the batch status the items add up to. */
export function batchStatus(items: readonly Pick<Payout, 'status'>[]): BatchStatus {
  const count = (s: Payout['status']) => items.filter((i) => i.status === s).length;
  const n = items.length;
  if (count('pending') === n) return 'pending';
  if (count('authorized') === n) return 'authorized';
  if (count('completed') === n) return 'completed';
  if (count('failed') === n) return 'failed';
  if (count('completed') + count('failed') === n) return 'partially_completed';
  return 'processing';
}

/** The `PayoutBatch` typed data of a batch and its items, rebuilt identically every time. */
export function batchTypedData(batch: PayoutBatch, items: readonly Payout[]): BatchTypedData {
  return buildBatchTypedData({
    chainId: batch.chainId,
    router: batch.router,
    token: batch.tokenAddress,
    merchant: batch.payer,
    items: items.map((i) => ({ recipient: i.recipientHex, amount: i.amountRaw })),
    nonce: batch.nonce,
    deadline: batch.deadline,
  });
}

export class BatchService {
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
   * Creates a batch after checking every item, the batch router's allowance and the wallet's balance
   * against the total, and that the network's blocks can hold the relay. A repeated batch
   * `external_id` with the same parameters returns the same batch and order; an item `external_id`
   * already used by any payout of the merchant is 409.
   */
  async create(em: EntityManager, merchantId: string, input: CreateBatchRequest): Promise<BatchView> {
    const target = await this.chains.target(em, merchantId, { ...input, routerKind: 'batch' });
    const items = this.parseItems(target, input);
    const totalRaw = items.reduce((sum, i) => sum + i.amountRaw, 0n);
    const wanted = {
      network: target.network.id,
      token: target.token.symbol,
      callbackUrl: input.callbackUrl || null,
      items: items.map((i) => [i.externalId, i.recipient, i.amount]),
    };
    const existing = () =>
      input.externalId
        ? em.fork().findOne(PayoutBatch, { merchant: merchantId, externalId: input.externalId })
        : Promise.resolve(null);
    const before = await existing();
    if (before) return this.repeated(em, before, wanted);
    try {
      await this.checkItemReferences(
        em,
        merchantId,
        items.map((i) => i.externalId).filter((x) => x !== null),
      );
    } catch (error) {
      // A concurrent identical create may have just committed this very batch and its items.
      const winner = await existing();
      if (winner) return this.repeated(em, winner, wanted);
      throw error;
    }
    await this.chains.requireFunds(target, totalRaw);
    await this.checkGas(target.network, items.length);
    if (target.network.kind === 'tron') await this.checkEnergy(target, items);
    const nonce = await allocateNonce(em, this.chains, target);
    const now = this.clock();
    const deadline = (await this.chains.chainNow(target.network, now)) + ORDER_TTL_SECONDS;
    const id = newId('batch');
    const inserted = await em.transactional((tx) =>
      insertBatch(tx, { id, merchantId, input, target, items, totalRaw, nonce, deadline, now }),
    );
    if (!inserted) return this.repeated(em, (await existing())!, wanted);
    const view = await this.get(em, merchantId, id);
    return { ...view, typedData: batchTypedData(view.batch, view.items) };
  }

  /** The request's items in base units, recipients checked for the network (errors name the item). */
  private parseItems(target: PayoutTarget, input: CreateBatchRequest): BatchItemInput[] {
    // Duplicate item external_ids are refused by the request schema, before this.
    return input.items.map((item, index) => {
      const at = `items[${index}]`;
      const amountRaw = this.chains.parseAmount(target.token, item.amount, `${at}.amount`);
      const recipientHex = this.chains.recipientHex(target.network, item.recipient, `${at}.recipient`);
      return {
        externalId: item.externalId ?? null,
        amountRaw,
        amount: formatUnits(amountRaw, target.token.decimals),
        recipientHex,
        recipient: target.network.kind === 'tron' ? item.recipient : recipientHex,
      };
    });
  }

  /** A repeat of the batch `external_id`: the same batch and order when the parameters match, else 409. */
  private async repeated(
    em: EntityManager,
    existing: PayoutBatch,
    wanted: Record<string, unknown>,
  ): Promise<BatchView> {
    const view = await this.get(em, existing.merchant.id, existing.id);
    const had = {
      network: existing.network,
      token: existing.token,
      callbackUrl: existing.callbackUrl,
      items: view.items.map((i) => [i.externalId, i.recipient, i.amount]),
    };
    if (JSON.stringify(had) !== JSON.stringify(wanted))
      throw new AppError('conflict', 'external_id: already used for a batch with different parameters');
    return { ...view, typedData: batchTypedData(view.batch, view.items) };
  }

  /** 409 when an item reference already names a payout of the merchant (single or batch item). */
  private async checkItemReferences(em: EntityManager, merchantId: string, refs: string[]): Promise<void> {
    if (refs.length === 0) return;
    const used = await em.find(
      Payout,
      { merchant: merchantId, externalId: { $in: refs } },
      { fields: ['externalId'], limit: 1 },
    );
    if (used[0])
      throw new AppError(
        'conflict',
        `item external_id "${used[0].externalId}" is already used by another payout`,
      );
  }

  /** 400 at create when the network's block gas limit cannot hold the relay with a 2x margin. */
  private async checkGas(
    network: Parameters<PayoutChains['blockGasLimit']>[0],
    items: number,
  ): Promise<void> {
    const limit = await this.chains.blockGasLimit(network);
    if (limit === undefined) return;
    const needed = GAS_PER_CALL + GAS_PER_ITEM * BigInt(items);
    if (needed * 2n > limit)
      throw validation(
        `items: ${items} items need up to ${needed} gas, more than half of ${network.id}'s block gas limit (${limit}); split the batch`,
      );
  }

  /**
   * 400 at create when a Tron batch's estimated energy costs more than a relay may burn there (the
   * chain's `getMaxFeeLimit`, or the network's `relay.feeLimitSun`): it could never be paid.
   */
  private async checkEnergy(
    target: Parameters<PayoutChains['tronBatchEnergy']>[0],
    items: readonly { recipientHex: string; amountRaw: bigint }[],
  ): Promise<void> {
    const { energy, prices, cap } = await this.chains.tronBatchEnergy(target, items[0]!, items.length);
    const cost = energy * prices.energyFee;
    if (cost > cap)
      throw validation(
        `items: ${items.length} items need about ${energy} energy (${formatUnits(cost, 6)} TRX), more than the fee limit cap of ${formatUnits(cap, 6)} TRX on ${target.network.id}; split the batch`,
      );
  }

  /** The batch with its items (any merchant's for operators: null), or 404. */
  async get(em: EntityManager, merchantId: string | null, id: string): Promise<BatchView> {
    const batch = await em.findOne(PayoutBatch, merchantId ? { id, merchant: merchantId } : { id });
    if (!batch) throw notFound('batch');
    const items = await em.find(Payout, { batchId: id }, { orderBy: { batchIndex: 'asc' } });
    return { batch, items, status: batchStatus(items) };
  }

  /** Operators' listing, newest first. */
  async list(
    em: EntityManager,
    filter: { merchantId?: string | null; network?: string | null },
    first: number,
    after?: string | null,
  ) {
    const where = setFilters({ merchant: filter.merchantId, network: filter.network });
    return findPage(em, PayoutBatch, where, { first, after });
  }
}

/** An item of a batch being created, checked and in base units. */
interface BatchItemInput {
  externalId: string | null;
  amountRaw: bigint;
  amount: string;
  recipientHex: string;
  recipient: string;
}

/**
 * Inserts the batch and its items in the caller's transaction, and announces the items on
 * `payoutChanged`. False when a batch with the same
 * `external_id` is there already (a concurrent identical create won); an item reference taken
 * meanwhile by another payout rolls the whole batch back (409).
 */
async function insertBatch(
  tx: EntityManager,
  b: {
    id: string;
    merchantId: string;
    input: CreateBatchRequest;
    target: PayoutTarget;
    items: BatchItemInput[];
    totalRaw: bigint;
    nonce: bigint;
    deadline: number;
    now: Date;
  },
): Promise<boolean> {
  const { id, merchantId, input, target, items, totalRaw, nonce, deadline, now } = b;
  const rows = await tx
    .createQueryBuilder(PayoutBatch)
    .insert({
      id,
      merchant: merchantId,
      externalId: input.externalId ?? null,
      network: target.network.id,
      token: target.token.symbol,
      tokenAddress: target.token.address,
      total: formatUnits(totalRaw, target.token.decimals),
      totalRaw: totalRaw.toString(),
      itemCount: items.length,
      callbackUrl: input.callbackUrl || null,
      payer: target.walletHex,
      router: target.router,
      chainId: target.network.chainId,
      nonce: nonce.toString(),
      batchKey: batchKey(target.walletHex, nonce),
      deadline,
      submissions: 0,
      createdAt: now,
      updatedAt: now,
    })
    .onConflict(['merchant', 'externalId'])
    .ignore()
    .execute('run');
  if (rows.affectedRows === 0) return false;
  // An item reference taken meanwhile by another payout rolls the whole batch back (409).
  const taken = await tx.execute<{ id: string; external_id: string }[]>(
    `insert into payouts (id, merchant_id, external_id, batch_id, batch_index, order_index, network, token,
         token_address, amount, amount_raw, recipient, recipient_hex, callback_url, payer, router, chain_id,
         nonce, deadline, status, version, created_at, updated_at)
       select r.id, ?, r.external_id, ?, r.idx, r.idx, ?, ?, ?, r.amount, r.amount_raw::numeric, r.recipient,
              r.recipient_hex, ?, ?, ?, ?, ?::numeric, ?, 'pending', 0, ?, ?
         from jsonb_to_recordset(?::jsonb) as r(id text, idx int, external_id text, amount text, amount_raw text,
                                                recipient text, recipient_hex text)
       on conflict (merchant_id, external_id) do nothing
       returning id, external_id`,
    [
      merchantId,
      id,
      target.network.id,
      target.token.symbol,
      target.token.address,
      input.callbackUrl || null,
      target.walletHex,
      target.router,
      target.network.chainId,
      nonce.toString(),
      deadline,
      now,
      now,
      JSON.stringify(
        items.map((i, idx) => ({
          id: newId('payout'),
          idx,
          external_id: i.externalId,
          amount: i.amount,
          amount_raw: i.amountRaw.toString(),
          recipient: i.recipient,
          recipient_hex: i.recipientHex,
        })),
      ),
    ],
    'all',
  );
  if (taken.length !== items.length) {
    throw new AppError('conflict', 'an item external_id is already used by another payout of this merchant');
  }
  // New items are announced like their later transitions, so live lists show the batch at once.
  await publish(
    tx,
    payoutChanged,
    taken.map((r) => ({ id: r.id, merchantId, batchId: id })),
  );
  return true;
}
