import { graphql } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { BASE, Link } from '../router.ts';
import { Amount, Facts, Id, Status, Time, Unanswered } from '../ui.tsx';
import { RecordHeading } from './common.tsx';
import { DataTable } from './list.tsx';
import { FAILURES } from './payout.tsx';

const BatchQuery = graphql(`
  query Batch($id: ID!) {
    payoutBatch(id: $id) {
      id
      merchantId
      externalId
      status
      network
      token
      total
      payer
      nonce
      submissions
      createdAt
      authorizedAt
      items {
        id
        batchIndex
        recipient
        amount
        status
        failureReason
        txHash
        executedBlock
      }
    }
  }
`);

const Changed = graphql(`
  subscription BatchChanged($id: ID!) {
    payoutBatchChanged(id: $id) {
      id
      status
    }
  }
`);

export function BatchView({ id }: { id: string }) {
  const read = useRead({ query: BatchQuery, variables: { id } });
  const { data, reload } = read;
  useLive(Changed, { id }, reload);
  if (!data) return <Unanswered read={read} what="the batch" />;
  const b = data.payoutBatch;
  return (
    <section>
      <RecordHeading list="payouts" listName="Payouts">
        Batch <Id value={b.id} />
      </RecordHeading>
      <Facts
        rows={[
          ['Status', <Status value={b.status} />],
          ['Total', <Amount value={b.total} token={b.token} />],
          ['Network', b.network],
          ['Merchant', <Link href={`${BASE}/merchants/${b.merchantId}`}>{b.merchantId}</Link>],
          ['External id', b.externalId ? <Id value={b.externalId} /> : null],
          ['Payout wallet', <Id value={b.payer} />],
          ['Submissions', String(b.submissions)],
          ['Created', <Time at={b.createdAt} />],
          ['Authorized', <Time at={b.authorizedAt} />],
        ]}
      />
      <h2>Items</h2>
      <DataTable
        caption="Items"
        columns={['#', 'Payout', 'Recipient', 'Amount', 'State', 'Transaction', 'Block']}
      >
        {b.items.map((p) => (
          <tr key={p.id}>
            <td>{p.batchIndex}</td>
            <td>
              <Link href={`${BASE}/payouts/${p.id}`}>{p.id}</Link>
            </td>
            <td>
              <Id value={p.recipient} short />
            </td>
            <td>
              <Amount value={p.amount} token={b.token} />
            </td>
            <td>
              <Status value={p.status} />
              {p.failureReason ? (
                <div class="error-text small">{FAILURES[p.failureReason] ?? p.failureReason}</div>
              ) : null}
            </td>
            <td>{p.txHash ? <Id value={p.txHash} short /> : <span class="muted">—</span>}</td>
            <td>{p.executedBlock ?? '—'}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
