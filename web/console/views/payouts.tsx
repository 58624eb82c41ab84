import { graphql } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { BASE, Link, useLoc } from '../router.ts';
import { Amount, Id, Status, Time } from '../ui.tsx';
import { Pager } from './common.tsx';
import { DataTable, ListState, RecordFilters, recordFilter } from './list.tsx';

const Payouts = graphql(`
  query Payouts($filter: PayoutFilter, $after: String) {
    payouts(filter: $filter, after: $after, first: 50) {
      hasNextPage
      endCursor
      nodes {
        id
        merchantId
        externalId
        status
        network
        token
        amount
        recipient
        batchId
        failureReason
        relayNote
        createdAt
      }
    }
  }
`);

const Batches = graphql(`
  query Batches($merchantId: ID, $network: String) {
    payoutBatches(merchantId: $merchantId, network: $network, first: 20) {
      nodes {
        id
        batch {
          id
          status
          network
          token
          total
          createdAt
          items {
            id
          }
        }
      }
    }
  }
`);

const PayoutChanged = graphql(`
  subscription PayoutChanged($merchantId: ID) {
    payoutChanged(merchantId: $merchantId) {
      id
      status
    }
  }
`);

export function PayoutsView() {
  const loc = useLoc();
  const filter = recordFilter(loc);
  const payouts = useRead({ query: Payouts, variables: { filter, after: loc.query.get('after') } });
  const batches = useRead({
    query: Batches,
    variables: { merchantId: filter.merchantId, network: filter.network },
  });
  useLive(PayoutChanged, { merchantId: filter.merchantId }, () => {
    payouts.reload();
    batches.reload();
  });
  const page = payouts.data?.payouts;
  return (
    <section>
      <h1>Payouts</h1>
      <RecordFilters
        loc={loc}
        statuses={['pending', 'authorized', 'submitted', 'completed', 'failed']}
        search="payout id, external id, recipient or tx hash"
      />
      <ListState
        read={payouts}
        what="payouts"
        items={page?.nodes}
        empty="No payout matches. Clear the filters, or create one through the API."
      >
        {(nodes) => (
          <DataTable
            caption="Payouts"
            columns={['Payout', 'Status', 'Amount', 'Network', 'Recipient', 'Why', 'Created']}
          >
            {nodes.map((p) => (
              <tr key={p.id} data-payout={p.id}>
                <td>
                  <Link href={`${BASE}/payouts/${p.id}`}>{p.id}</Link>
                  {p.batchId ? (
                    <div class="small">
                      in <Link href={`${BASE}/batches/${p.batchId}`}>{p.batchId}</Link>
                    </div>
                  ) : null}
                </td>
                <td>
                  <Status value={p.status} />
                </td>
                <td>
                  <Amount value={p.amount} token={p.token} />
                </td>
                <td>{p.network}</td>
                <td>
                  <Id value={p.recipient} short />
                </td>
                <td>{p.failureReason ?? p.relayNote ?? <span class="muted">—</span>}</td>
                <td>
                  <Time at={p.createdAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      <Pager loc={loc} page={page} />
      <h2>Batches</h2>
      <ListState items={batches.data?.payoutBatches.nodes} empty="No batch payouts yet.">
        {(nodes) => (
          <DataTable caption="Batches" columns={['Batch', 'Status', 'Items', 'Total', 'Network', 'Created']}>
            {nodes.map(({ batch: b }) => (
              <tr key={b.id}>
                <td>
                  <Link href={`${BASE}/batches/${b.id}`}>{b.id}</Link>
                </td>
                <td>
                  <Status value={b.status} />
                </td>
                <td>{b.items.length}</td>
                <td>
                  <Amount value={b.total} token={b.token} />
                </td>
                <td>{b.network}</td>
                <td>
                  <Time at={b.createdAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
    </section>
  );
}
