import type { EntityManager } from '../../db/orm.ts';
import { unavailable } from '../../errors.ts';
import type { PayoutChains, PayoutTarget } from './payout.chain.ts';

/**
 * Router nonces (D14): allocated per (network, router, signer) by one atomic increment of a database
 * row, so concurrent creates can never share one, and never reused. The database can be restored
 * from a backup older than the chain: a nonce the router already executed is skipped (checked with
 * `nonceUsed` outside any transaction) and the counter moves past it.
 */

/** Nonces skipped in a row before giving up (a restored counter far behind the chain). */
const MAX_SKIPS = 16;

/** Takes the next nonce of the target's signer on its router, past any the router already used. */
export async function allocateNonce(
  em: EntityManager,
  chains: PayoutChains,
  target: PayoutTarget,
): Promise<bigint> {
  for (let skipped = 0; skipped < MAX_SKIPS; skipped++) {
    const nonce = await takeNonce(em, target.network.id, target.router, target.walletHex);
    if (!(await chains.nonceUsed(target.network, target.router, target.walletHex, nonce))) return nonce;
  }
  throw unavailable(
    `router nonces of ${target.walletHex} on ${target.network.id} are far behind the chain; retry shortly`,
  );
}

/** One atomic increment; its own statement, committed at once (never held across a chain read). */
export async function takeNonce(
  em: EntityManager,
  network: string,
  router: string,
  signer: string,
): Promise<bigint> {
  const [row] = await em.getConnection().execute<{ nonce: string }[]>(
    `insert into router_nonces (network, router, signer, next, updated_at) values (?, ?, ?, 1, now())
     on conflict (network, router, signer) do update set next = router_nonces.next + 1, updated_at = now()
     returning next - 1 as nonce`,
    [network, router, signer],
  );
  return BigInt(row!.nonce);
}
