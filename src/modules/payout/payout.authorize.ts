import { executeBound } from '../../db/bulk.ts';
import { Coalescer } from '../../db/coalesce.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, notFound, unavailable } from '../../errors.ts';
import { type RelayRequestInput, requestRelays } from '../../relay/request.ts';
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
    const { payout, walletRead } = await readForAuthorize(service, em, merchantId, input.payout);
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
    if (Math.floor(now.getTime() / 1000) > payout.deadline) {
      // Refused, but not settled here: the merchant may have relayed the signed order itself, and the
      // chain's clock lags ours. The follower settles it `expired` on final chain evidence (payout.expire.ts).
      throw new AppError(
        'expired',
        'the payout’s 30-minute deadline passed before it was authorized; create a new payout under a new external_id',
      );
    }
    const set = { status: 'authorized' as const, signature, authorizedAt: now };
    const written = await writerOf(service).load({
      em,
      payout,
      set,
      relay: {
        kind: 'payout',
        subjectId: payout.id,
        network: payout.network,
        to: payout.router,
        data: executeCalldata(payout, signature, typedData),
        deadline: payout.deadline,
        pipelined: service.chains.network(payout.network).kind === 'evm',
      },
    });
    // The answer is what this call did (`authorized`), never a later state a worker fast enough reached
    // meanwhile: the row as read, with this change's columns and the version and time it was written at.
    if (written) return Object.assign(payout, set, written);
    // A payout changed meanwhile is read again by the next attempt.
  }
  throw unavailable('the payout is changing too fast; retry shortly');
}

/** One authorization's write: the payout as read, its change, and its relay request. */
interface AuthorizationWrite {
  em: EntityManager;
  payout: Payout;
  set: { status: 'authorized'; signature: string; authorizedAt: Date };
  relay: RelayRequestInput;
}
type Written = { version: number; updatedAt: Date } | undefined;

const writers = new WeakMap<PayoutService, Coalescer<AuthorizationWrite, Written>>();

/**
 * The authorizations of a service, written together (src/db/coalesce.ts): the ones that arrive while
 * a write is on its way go as the next transaction — one version-guarded UPDATE through the transition
 * engine, one notice, one INSERT of their relay requests with their jobs — instead of five round trips
 * each. The engine refuses two changes of one row in one apply: a second authorization of the same
 * payout in a batch is answered as not applied and reads the payout again.
 */
function writerOf(service: PayoutService): Coalescer<AuthorizationWrite, Written> {
  let writer = writers.get(service);
  if (!writer) {
    writer = new Coalescer(writeAuthorizations);
    writers.set(service, writer);
  }
  return writer;
}

async function writeAuthorizations(batch: AuthorizationWrite[]): Promise<Written[]> {
  const first = new Map<string, AuthorizationWrite>();
  for (const w of batch) if (!first.has(w.payout.id)) first.set(w.payout.id, w);
  const writes = [...first.values()];
  return batch[0]!.em.fork().transactional(async (tx) => {
    const { applied, written } = await transitionPayouts(
      tx,
      writes.map((w) => ({ kind: 'authorized', payout: payoutSnapshot(w.payout), set: w.set })),
      'report',
    );
    await requestRelays(
      tx,
      writes.filter((w) => applied.has(w.payout.id)).map((w) => w.relay),
    );
    return batch.map((w) => (first.get(w.payout.id) === w ? written.get(w.payout.id) : undefined));
  });
}

type Row = Record<string, unknown> & {
  merchant_id: string;
  wallet_address: string | null;
  wallet_tron: string | null;
};

const readers = new WeakMap<PayoutService, Coalescer<{ em: EntityManager; id: string }, Row | undefined>>();

/**
 * The payout (404 when it is not this merchant's) and, in the same statement, the payout wallet
 * columns its signature is checked against (`PayoutChains.walletOf`): the settlement wallet of the
 * payout's network and the merchant's Tron payout wallet. Read as fresh as the two reads they replace;
 * the reads that arrive while one is on its way go together as the next (src/db/coalesce.ts).
 */
async function readForAuthorize(service: PayoutService, em: EntityManager, merchantId: string, id: string) {
  let reader = readers.get(service);
  if (!reader) {
    reader = new Coalescer(async (batch) => {
      const rows = await executeBound<Row>(
        batch[0]!.em.fork(),
        `select p.*, w.address as wallet_address, m.tron_payout_wallet as wallet_tron
           from payouts p
           join merchants m on m.id = p.merchant_id
           left join settlement_wallets w on w.merchant_id = p.merchant_id and w.network = p.network
          where p.id = any($1::text[])`,
        [batch.map((r) => r.id)],
      );
      const byId = new Map(rows.map((r) => [r.id as string, r]));
      return batch.map((r) => byId.get(r.id));
    });
    readers.set(service, reader);
  }
  const row = await reader.load({ em, id });
  if (!row || row.merchant_id !== merchantId) throw notFound('payout');
  const { wallet_address: settlementWallet, wallet_tron: tronPayoutWallet, ...columns } = row;
  return { payout: em.fork().map(Payout, columns), walletRead: { settlementWallet, tronPayoutWallet } };
}
