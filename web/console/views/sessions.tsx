import { graphql } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { BASE, Link, useLoc } from '../router.ts';
import { Amount, Id, Status, Time } from '../ui.tsx';
import { Pager } from './common.tsx';
import { DataTable, ListState, RecordFilters, recordFilter } from './list.tsx';
import { UnmatchedPayments } from './unmatched.tsx';

const Sessions = graphql(`
  query Sessions($filter: DepositSessionFilter, $after: String) {
    sessions(filter: $filter, after: $after, first: 50) {
      hasNextPage
      endCursor
      nodes {
        id
        merchantId
        externalOrderId
        playerId
        status
        step
        network
        token
        amount
        txHash
        createdAt
        updatedAt
      }
    }
  }
`);

const SessionChanged = graphql(`
  subscription SessionChanged($merchantId: ID) {
    sessionChanged(merchantId: $merchantId) {
      id
      status
      step
    }
  }
`);

/** Deposit sessions: filters and search in the URL, live as sessions are created and settle. */
export function SessionsView() {
  const loc = useLoc();
  const filter = recordFilter(loc);
  const sessions = useRead({ query: Sessions, variables: { filter, after: loc.query.get('after') } });
  const live = useLive(SessionChanged, { merchantId: filter.merchantId }, sessions.reload);
  const page = sessions.data?.sessions;
  return (
    <section>
      <h1>Sessions</h1>
      <p class="live" aria-live="polite">
        {live.error ? 'Live updates paused: reconnecting…' : 'Live: new and changed sessions appear here.'}
      </p>
      <RecordFilters
        loc={loc}
        statuses={['pending', 'processing', 'completed', 'failed']}
        search="session id, order id, player, wallet or tx hash"
      />
      <ListState
        read={sessions}
        what="sessions"
        items={page?.nodes}
        empty={
          <>No session matches. Clear the filters, or open one through the API (POST /v1/cashier/init).</>
        }
      >
        {(nodes) => (
          <DataTable
            caption="Sessions"
            columns={['Session', 'Status', 'Step', 'Amount', 'Network', 'Order', 'Player', 'Created']}
          >
            {nodes.map((s) => (
              <tr key={s.id} data-session={s.id}>
                <td>
                  <Link href={`${BASE}/sessions/${s.id}`}>{s.id}</Link>
                </td>
                <td>
                  <Status value={s.status} />
                </td>
                <td>{s.step}</td>
                <td>
                  <Amount value={s.amount} token={s.token} />
                </td>
                <td>{s.network ?? <span class="muted">—</span>}</td>
                <td>{s.externalOrderId ? <Id value={s.externalOrderId} /> : <span class="muted">—</span>}</td>
                <td>{s.playerId ?? <span class="muted">—</span>}</td>
                <td>
                  <Time at={s.createdAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      <Pager loc={loc} page={page} />
      <UnmatchedPayments loc={loc} />
    </section>
  );
}
