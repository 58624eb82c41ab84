import type { EntityManager } from '../../db/orm.ts';
import { AppError, unavailable } from '../../errors.ts';
import { requestRelay } from '../../relay/request.ts';
import type { Payout } from './payout.entity.ts';
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
    const payout = await service.get(em.fork(), merchantId, input.payout);
    const signature = await checkOrderSignature(
      service.chains,
      em,
      { merchantId, network: payout.network, payer: payout.payer, typedData: orderTypedData(payout) },
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
    const applied = await em.transactional(async (tx) => {
      // A payout changed meanwhile is read again by the next attempt.
      const { applied: done } = await transitionPayouts(
        tx,
        [
          {
            kind: 'authorized',
            payout: snapshot,
            set: { status: 'authorized', signature, authorizedAt: now },
          },
        ],
        'report',
      );
      if (!done.has(payout.id)) return undefined;
      await requestRelay(tx, {
        kind: 'payout',
        subjectId: payout.id,
        network: payout.network,
        to: payout.router,
        data: executeCalldata(payout, signature),
        deadline: payout.deadline,
      });
      // Read before the commit: the answer is what this call did (`authorized`), never a later state
      // a worker fast enough reached meanwhile.
      return service.get(tx, merchantId, payout.id);
    });
    if (applied) return applied;
  }
  throw unavailable('the payout is changing too fast; retry shortly');
}
