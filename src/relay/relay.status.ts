import { toTronHex } from '../chains/tron/address.ts';
import type { EntityManager } from '../db/orm.ts';
import { formatUnits } from '../money.ts';
import { RelayerWallet, RelayRequest, RelayTransaction } from './relay.entity.ts';
import type { Relayer } from './relayer.ts';

/** What operators see of the relayer: each network's hot wallet, its balance and its queue. */
export interface RelayerWalletStatus {
  network: string;
  address: string;
  /** Native balance in whole coins; null when the node did not answer. */
  balance: string | null;
  balanceRaw: string | null;
  nextNonce: number | null;
  queued: number;
  submitted: number;
  outOfGasSince: Date | null;
  lastError: string | null;
}

export async function relayerWallets(relayer: Relayer, em: EntityManager): Promise<RelayerWalletStatus[]> {
  const counts = await em.execute<{ network: string; status: string; n: number }[]>(
    `select network, status, count(*)::int as n from relay_requests
      where status in ('queued', 'submitted', 'mined') group by network, status`,
  );
  const rows = await em.find(RelayerWallet, {});
  const out: RelayerWalletStatus[] = [];
  for (const network of relayer.deps.networks.list()) {
    const wallet = relayer.wallet(network);
    if (!wallet) continue;
    const row = rows.find((r) => r.network === network.id);
    let raw: bigint | null = null;
    try {
      raw =
        network.kind === 'tron'
          ? BigInt(
              (
                await relayer.deps.clients
                  .tronHttp(network)
                  .post<{ balance?: number }>('/wallet/getaccount', {
                    address: toTronHex(wallet.address),
                  })
              ).balance ?? 0,
            )
          : await relayer.deps.clients.evm(network).getNativeBalance(wallet.address);
    } catch {
      raw = null;
    }
    const count = (status: string) =>
      counts.find((c) => c.network === network.id && c.status === status)?.n ?? 0;
    out.push({
      network: network.id,
      address: relayer.displayAddress(network)!,
      balance: raw === null ? null : formatUnits(raw, network.kind === 'tron' ? 6 : 18),
      balanceRaw: raw?.toString() ?? null,
      nextNonce: row ? Number(row.nextNonce) : null,
      queued: count('queued'),
      submitted: count('submitted') + count('mined'),
      outOfGasSince: row?.outOfGasSince ?? null,
      lastError: row?.lastError ?? null,
    });
  }
  return out;
}

/** The relay request of a subject (a payout, or a batch's submissions) with every transaction. */
export async function relayOf(em: EntityManager, subject: { id: string } | { batchId: string }) {
  const where =
    'id' in subject ? { subjectId: subject.id } : { subjectId: { $like: `${subject.batchId}#%` } };
  const requests = await em.find(RelayRequest, where, { orderBy: { id: 'asc' } });
  const txs = await em.find(
    RelayTransaction,
    { request: { $in: requests.map((r) => r.id) } },
    { orderBy: { id: 'asc' } },
  );
  return requests.map((request) => ({
    request,
    transactions: txs.filter((t) => Number(t.request.id) === request.id),
  }));
}
