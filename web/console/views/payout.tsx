import { graphql } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { BASE, Link } from '../router.ts';
import { Amount, Empty, Facts, Id, Status, Time, Unanswered } from '../ui.tsx';
import { RecordHeading } from './common.tsx';
import { DataTable } from './list.tsx';
import { DeliveryTable } from './webhooks.tsx';

const PayoutQuery = graphql(`
  query Payout($id: ID!) {
    payout(id: $id) {
      id
      merchantId
      externalId
      status
      network
      token
      amount
      amountRaw
      recipient
      payer
      router
      nonce
      batchId
      batchIndex
      failureReason
      relayNote
      txHash
      executedBlock
      createdAt
      authorizedAt
      settledAt
      relays {
        id
        kind
        status
        attempts
        lastError
        txHash
        transactions {
          hash
          kind
          status
          nonce
          minedBlock
          sentAt
          createdAt
        }
      }
    }
  }
`);

const Changed = graphql(`
  subscription OnePayoutChanged($id: ID!) {
    payoutChanged(id: $id) {
      id
      status
    }
  }
`);

/** Why a payout failed, in words an operator can act on. */
export const FAILURES: Record<string, string> = {
  expired: 'expired: the order was not signed or relayed before its deadline',
  invalid_signature: 'invalid_signature: the signature is not the payout wallet’s',
  nonce_used: 'nonce_used: the router nonce was already spent',
  insufficient_allowance:
    'insufficient_allowance: the payout wallet has not approved the router for this amount',
  insufficient_funds: 'insufficient_funds: the payout wallet holds less than the amount',
  transfer_failed: 'transfer_failed: the token refused the transfer',
  reverted: 'reverted: the router call reverted',
};

export function PayoutView({ id }: { id: string }) {
  const read = useRead({ query: PayoutQuery, variables: { id } });
  const { data, reload } = read;
  useLive(Changed, { id }, reload);
  if (!data) return <Unanswered read={read} what="the payout" />;
  const p = data.payout;
  return (
    <section>
      <RecordHeading list="payouts" listName="Payouts">
        Payout <Id value={p.id} />
      </RecordHeading>
      {p.failureReason ? (
        <p class="failure" role="alert">
          Failed — {FAILURES[p.failureReason] ?? p.failureReason}
        </p>
      ) : null}
      {p.relayNote ? <p class="note">Relay: {p.relayNote}</p> : null}
      <Facts
        rows={[
          ['Status', <Status value={p.status} />],
          ['Amount', <Amount value={p.amount} token={p.token} />],
          ['Base units', <code>{p.amountRaw}</code>],
          ['Network', p.network],
          ['Merchant', <Link href={`${BASE}/merchants/${p.merchantId}`}>{p.merchantId}</Link>],
          ['External id', p.externalId ? <Id value={p.externalId} /> : null],
          ['Recipient', <Id value={p.recipient} />],
          ['Payout wallet', <Id value={p.payer} />],
          ['Router', <Id value={p.router} />],
          ['Nonce', <code>{p.nonce}</code>],
          [
            'Batch',
            p.batchId ? (
              <Link href={`${BASE}/batches/${p.batchId}`}>{`${p.batchId} #${p.batchIndex}`}</Link>
            ) : null,
          ],
          ['Transaction', p.txHash ? <Id value={p.txHash} /> : null],
          ['Block', p.executedBlock !== null ? String(p.executedBlock) : null],
          ['Created', <Time at={p.createdAt} />],
          ['Authorized', <Time at={p.authorizedAt} />],
          ['Settled', <Time at={p.settledAt} />],
        ]}
      />
      <h2>Relay attempts</h2>
      {p.relays.length === 0 ? <Empty>Not relayed yet: the payout waits for its signature.</Empty> : null}
      {p.relays.map((r) => (
        <div key={r.id} class="relay">
          <p>
            <Id value={r.id} short /> {r.kind} — <Status value={r.status} />, {r.attempts} attempt
            {r.attempts === 1 ? '' : 's'}
            {r.lastError ? <span class="error-text"> — {r.lastError}</span> : null}
          </p>
          {r.transactions.length > 0 ? (
            <DataTable columns={['Transaction', 'Kind', 'State', 'Nonce', 'Block', 'Sent']}>
              {r.transactions.map((t) => (
                <tr key={t.hash}>
                  <td>
                    <Id value={t.hash} short />
                  </td>
                  <td>{t.kind}</td>
                  <td>
                    <Status value={t.status} />
                  </td>
                  <td>{t.nonce ?? '—'}</td>
                  <td>{t.minedBlock ?? '—'}</td>
                  <td>
                    <Time at={t.sentAt ?? t.createdAt} />
                  </td>
                </tr>
              ))}
            </DataTable>
          ) : null}
        </div>
      ))}
      <h2>Webhooks</h2>
      <DeliveryTable subjectId={p.id} />
    </section>
  );
}
