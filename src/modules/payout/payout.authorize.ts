import type { EntityManager } from '../../db/orm.ts';
import { AppError, notFound, unavailable } from '../../errors.ts';
import { requestRelay } from '../../relay/request.ts';
import { Payout } from './payout.entity.ts';
import { executeCalldata, orderTypedData } from './payout.order.ts';
import type { AuthorizePayoutRequest } from './payout.schemas.ts';
import type { PayoutService } from './payout.service.ts';
import { checkOrderSignature } from './payout.signature.ts';
import { payoutSnapshot, transitionPayouts } from './payout.transition.ts';

/** Attempts when another request changes the payout between reading and writing it. */
const ATTEMPTS = 3;

/**
 * Authorizes a payout (section 4.12, D7, D11, D14). The signature is checked against the payout
 * wallet the order names, which must still be the merchant's configured payout wallet — never
 * against anything in the request; `v` 0/1 and a high `s` are normalised, so what is stored is what
 * the router accepts. The payout moves to `authorized` in the same transaction that queues its relay.
 * A payout already authorized or beyond answers unchanged to a valid signature (the first one is
 * relayed); a pending one past its deadline is answered with 410 and left for the chain follower to
 * settle `failed`/`expired` once the deadline is past at a final block (payout.expire.ts).
 */
export async function authorizePayout(
  service: PayoutService,
  em: EntityManager,
  merchantId: string,
  input: AuthorizePayoutRequest,
): Promise<Payout> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const { payout, walletRead } = await readForAuthorize(em.fork(), merchantId, input.payout);
    const typedData = orderTypedData(payout);
    const signature = await checkOrderSignature(
      service.chains,
      em,
      { merchantId, network: payout.network, payer: payout.payer, typedData, walletRead },
      input.signature,
    );
    if (payout.status === 'failed' && payout.failureReason === 'expired' && !payout.authorizedAt)
      throw new AppError(
        'expired',
        'the payout expired unsigned; create a new payout under a new external_id',
      );
    if (payout.status !== 'pending') return payout;
    const now = service.clock();
    const snapshot = payoutSnapshot(payout);
    if (Math.floor(now.getTime() / 1000) > payout.deadline) {
      // Refused, but not settled here: the merchant may have relayed the signed order itself, and the
      // chain's clock lags ours. The follower settles it `expired` on final chain evidence (payout.expire.ts).
      throw new AppError(
        'expired',
        'the payout’s 30-minute deadline passed before it was authorized; create a new payout under a new external_id',
      );
    }
    const set = { status: 'authorized' as const, signature, authorizedAt: now };
    const written = await em.transactional(async (tx) => {
      // A payout changed meanwhile is read again by the next attempt.
      const { applied, written: rows } = await transitionPayouts(
        tx,
        [{ kind: 'authorized', payout: snapshot, set }],
        'report',
      );
      if (!applied.has(payout.id)) return undefined;
      await requestRelay(tx, {
        kind: 'payout',
        subjectId: payout.id,
        network: payout.network,
        to: payout.router,
        data: executeCalldata(payout, signature, typedData),
        deadline: payout.deadline,
      });
      return rows.get(payout.id);
    });
    // The answer is what this call did (`authorized`), never a later state a worker fast enough reached
    // meanwhile: the row as read, with this change's columns and the version and time it was written at.
    if (written) return Object.assign(payout, set, written);
  }
  throw unavailable('the payout is changing too fast; retry shortly');
}

/**
 * The payout (404 when it is not this merchant's) and, in the same statement, the payout wallet
 * columns its signature is checked against (`PayoutChains.walletOf`): the settlement wallet of the
 * payout's network and the merchant's Tron payout wallet. Read as fresh as the two reads they replace.
 */
async function readForAuthorize(em: EntityManager, merchantId: string, id: string) {
  const [row] = await em.execute<
    (Record<string, unknown> & { wallet_address: string | null; wallet_tron: string | null })[]
  >(
    `select p.*, w.address as wallet_address, m.tron_payout_wallet as wallet_tron
       from payouts p
       join merchants m on m.id = p.merchant_id
       left join settlement_wallets w on w.merchant_id = p.merchant_id and w.network = p.network
      where p.id = ? and p.merchant_id = ?`,
    [id, merchantId],
  );
  if (!row) throw notFound('payout');
  const { wallet_address: settlementWallet, wallet_tron: tronPayoutWallet, ...columns } = row;
  return { payout: em.map(Payout, columns), walletRead: { settlementWallet, tronPayoutWallet } };
}
