import { useQuery } from '@urql/preact';
import { graphql } from '../graphql.ts';
import { useLive } from '../live.ts';
import { BASE, Link, useLoc } from '../router.ts';
import { Amount, Empty, Failure, Id, Loading, Status, Time } from '../ui.tsx';
import { Choice, dayBound, Filters, Input, MerchantSelect, Pager } from './common.tsx';
import { DataTable } from './list.tsx';

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
  const q = (k: string) => loc.query.get(k);
  const filter = {
    merchantId: q('merchant'),
    status: q('status'),
    network: q('network'),
    search: q('search'),
    createdAfter: dayBound(q('from')),
    createdBefore: dayBound(q('to'), true),
  };
  const [{ data, fetching, error }, refetch] = useQuery({
    query: Payouts,
    variables: { filter, after: q('after') },
  });
  const [batches, refetchBatches] = useQuery({
    query: Batches,
    variables: { merchantId: filter.merchantId, network: filter.network },
  });
  useLive(PayoutChanged, { merchantId: filter.merchantId }, () => {
    refetch({ requestPolicy: 'network-only' });
    refetchBatches({ requestPolicy: 'network-only' });
  });
  const page = data?.payouts;
  return (
    <section>
      <h1>Payouts</h1>
      <Filters loc={loc}>
        <MerchantSelect value={q('merchant')} />
        <Choice
          name="status"
          label="Status"
          value={q('status')}
          options={['pending', 'authorized', 'submitted', 'completed', 'failed']}
        />
        <Input name="network" label="Network" value={q('network')} placeholder="eth" />
        <Input name="from" label="From (UTC day)" type="date" value={q('from')} />
        <Input name="to" label="To (UTC day)" type="date" value={q('to')} />
        <Input
          name="search"
          label="Search"
          value={q('search')}
          placeholder="payout id, external id, recipient or tx hash"
        />
      </Filters>
      {error ? <Failure error={error} retry={() => refetch({ requestPolicy: 'network-only' })} /> : null}
      {!data && fetching ? <Loading what="payouts" /> : null}
      {page && page.nodes.length === 0 ? (
        <Empty>No payout matches. Clear the filters, or create one through the API.</Empty>
      ) : null}
      {page && page.nodes.length > 0 ? (
        <DataTable
          caption="Payouts"
          columns={['Payout', 'Status', 'Amount', 'Network', 'Recipient', 'Why', 'Created']}
        >
          {page.nodes.map((p) => (
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
      ) : null}
      <Pager loc={loc} page={page} />
      <h2>Batches</h2>
      {batches.data && batches.data.payoutBatches.nodes.length === 0 ? (
        <Empty>No batch payouts yet.</Empty>
      ) : null}
      {batches.data && batches.data.payoutBatches.nodes.length > 0 ? (
        <DataTable caption="Batches" columns={['Batch', 'Status', 'Items', 'Total', 'Network', 'Created']}>
          {batches.data.payoutBatches.nodes.map(({ batch: b }) => (
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
      ) : null}
    </section>
  );
}
