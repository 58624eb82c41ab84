import type { LegacyTx } from '../../chains/evm/tx-build.ts';
import type { DecodedTransaction } from '../../chains/evm/tx-decode.ts';
import type { EntityManager } from '../../db/orm.ts';
import { validation } from '../../errors.ts';
import type { PayoutTarget } from '../payout/payout.chain.ts';
import { ApprovalBuild } from './approval.entity.ts';

/**
 * The shape half of "exactly the approval that was built" on EVM (section 4.15): the transaction type,
 * nonce and gas fields must be those of an approval built for this merchant and these parameters.
 * Token, spender, amount, value, chain and signer are checked by the service; this closes what they
 * leave open — a type-4 transaction carrying the approve plus an EIP-7702 authorization list (which
 * changes another account's code when the wallet's signature is broadcast), an access list, a nonce
 * or fees of the caller's choosing.
 */

/** Builds looked at when matching: enough for any sane number of rebuilds of one approval. */
const RECENT_BUILDS = 50;

/**
 * Days a built approval can be broadcast. A build pins the wallet's nonce of that day, which a week
 * later has almost surely moved on; an older one is refused as expired (build again), and retention
 * deletes it (src/modules/retention), so the table holds a week of builds, not every build ever made.
 */
export const APPROVAL_BUILD_TTL_DAYS = 7;
const TTL_MS = APPROVAL_BUILD_TTL_DAYS * 86_400_000;

const TYPE_NAMES: Record<number, string> = {
  1: 'an EIP-2930 (type 1) transaction, with an access list',
  2: 'an EIP-1559 (type 2) transaction, which may carry an access list',
  3: 'an EIP-4844 (type 3) blob transaction',
  4: 'an EIP-7702 (type 4) transaction, with an authorization list',
};

const where = (merchantId: string, target: PayoutTarget, amount: bigint) => ({
  merchantId,
  network: target.network.id,
  token: target.token.address.toLowerCase(),
  spender: target.router.toLowerCase(),
  owner: target.walletHex.toLowerCase(),
  amountRaw: amount.toString(),
});

/** Keeps the built transaction's shape, so broadcast can hold a signed one against it. */
export async function recordBuild(
  em: EntityManager,
  merchantId: string,
  target: PayoutTarget,
  amount: bigint,
  tx: LegacyTx,
): Promise<void> {
  em.create(ApprovalBuild, {
    ...where(merchantId, target, amount),
    chainId: Number(BigInt(tx.chainId)),
    nonce: Number(BigInt(tx.nonce)),
    gas: BigInt(tx.gas).toString(),
    gasPrice: BigInt(tx.gasPrice).toString(),
  });
  await em.flush();
}

/** @throws AppError('validation') unless `tx` has the type, nonce and gas fields of such a build. */
export async function requireBuiltShape(
  em: EntityManager,
  merchantId: string,
  target: PayoutTarget,
  amount: bigint,
  tx: DecodedTransaction,
): Promise<void> {
  if (tx.type !== 0)
    throw validation(
      `not the approval that was built: it is ${TYPE_NAMES[tx.type] ?? `a type-${tx.type} transaction`}; ` +
        'sign the built legacy (type 0) transaction as it is',
    );
  const builds = await em.find(ApprovalBuild, where(merchantId, target, amount), {
    orderBy: { id: 'desc' },
    limit: RECENT_BUILDS,
  });
  if (builds.length === 0)
    throw validation('no approval was built for these parameters; build it first and sign it as it is');
  const fields = (b: ApprovalBuild) => ({
    nonce: BigInt(b.nonce),
    'gas limit': BigInt(b.gas),
    'gas price': BigInt(b.gasPrice),
  });
  const signed = { nonce: BigInt(tx.nonce), 'gas limit': tx.gasLimit, 'gas price': tx.gasPrice ?? -1n };
  const same = (b: ApprovalBuild) =>
    BigInt(b.chainId) === BigInt(tx.chainId) &&
    Object.entries(fields(b)).every(([k, v]) => signed[k as keyof typeof signed] === v);
  const matching = builds.filter(same);
  if (matching.some((b) => Date.now() - b.createdAt.getTime() < TTL_MS)) return;
  if (matching.length)
    throw validation(
      `the approval build expired: it can be broadcast for ${APPROVAL_BUILD_TTL_DAYS} days; build it again and sign the new one`,
    );
  // Said against the latest build of the same nonce, else the latest build. (The chain is checked
  // before this, and every build of this network has its chain.)
  const closest = builds.find((b) => BigInt(b.nonce) === signed.nonce) ?? builds[0]!;
  const differs = Object.entries(fields(closest)).find(([k, v]) => signed[k as keyof typeof signed] !== v);
  const [name, built] = differs ?? ['chain id', BigInt(closest.chainId)];
  const given = differs ? signed[name as keyof typeof signed] : BigInt(tx.chainId);
  throw validation(
    `not the approval that was built: ${name} ${given}, but it was built with ${built}; sign the built transaction as it is`,
  );
}
