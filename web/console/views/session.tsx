import { graphql, type ResultOf } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { BASE, Link } from '../router.ts';
import { Amount, Empty, Facts, Id, Status, Time, Unanswered } from '../ui.tsx';
import { RecordHeading } from './common.tsx';
import { DataTable } from './list.tsx';
import { DeliveryTable } from './webhooks.tsx';

const SessionQuery = graphql(`
  query Session($id: ID!) {
    session(id: $id) {
      id
      merchantId
      externalOrderId
      playerId
      status
      step
      network
      token
      amount
      wallet
      payee
      txHash
      reportedTxHash
      approvalTxHash
      blockNumber
      failureReason
      createdAt
      updatedAt
      settledAt
      expiresAt
      history {
        version
        kind
        cause
        actor
        fromStep
        toStep
        fromStatus
        toStatus
        failureReason
        txHash
        at
      }
    }
    chainFollowers {
      network
      stream
      headBlock
    }
  }
`);

const Changed = graphql(`
  subscription OneSessionChanged($id: ID!) {
    sessionChanged(id: $id) {
      id
      status
      step
    }
  }
`);

/** One session: what it is, where it stands, its payment on chain, and its webhooks. */
export function SessionView({ id }: { id: string }) {
  const read = useRead({ query: SessionQuery, variables: { id } });
  const { data, reload } = read;
  useLive(Changed, { id }, reload);
  if (!data) return <Unanswered read={read} what="the session" />;
  const s = data.session;
  const head = data.chainFollowers.find((f) => f.network === s.network && f.stream === 'sessions')?.headBlock;
  const confirmations = s.blockNumber !== null && head != null ? Math.max(0, head - s.blockNumber + 1) : null;
  return (
    <section>
      <RecordHeading list="sessions" listName="Sessions">
        Session <Id value={s.id} />
      </RecordHeading>
      <Facts
        rows={[
          ['Status', <Status value={s.status} />],
          ['Step', s.step],
          ['Merchant', <Link href={`${BASE}/merchants/${s.merchantId}`}>{s.merchantId}</Link>],
          ['Order', s.externalOrderId ? <Id value={s.externalOrderId} /> : null],
          ['Player', s.playerId],
          ['Amount', <Amount value={s.amount} token={s.token} />],
          ['Network', s.network],
          ['Failure reason', s.failureReason],
          ['Expires', <Time at={s.expiresAt} />],
        ]}
      />
      <h2>Steps</h2>
      <History entries={s.history} />
      <h2>Payment</h2>
      <Facts
        rows={[
          ['Payer wallet', s.wallet ? <Id value={s.wallet} /> : null],
          ['Paid to', s.payee ? <Id value={s.payee} /> : null],
          ['Transaction', s.txHash ? <Id value={s.txHash} /> : null],
          ['Reported transaction', s.reportedTxHash ? <Id value={s.reportedTxHash} /> : null],
          ['Approval transaction', s.approvalTxHash ? <Id value={s.approvalTxHash} /> : null],
          ['Block', s.blockNumber !== null ? String(s.blockNumber) : null],
          ['Confirmations', confirmations !== null ? String(confirmations) : null],
          ['Settled', s.settledAt ? <Time at={s.settledAt} /> : null],
        ]}
      />
      <h2>Webhooks</h2>
      <DeliveryTable subjectId={s.id} />
    </section>
  );
}

type Entry = ResultOf<typeof SessionQuery>['session']['history'][number];

/** What each kind of change means to an operator. */
const CHANGES: Record<string, string> = {
  created: 'Opened',
  step: 'Step',
  hosted_link: 'Hosted link issued',
  payment_found: 'Payment found',
  payment_lost: 'Payment lost (its block left the chain)',
  completed: 'Completed',
  failed: 'Failed',
};

/** Who or what made a change. */
const CAUSES: Record<Entry['cause'], string> = {
  merchant_api: 'Merchant API',
  player: 'Player (hosted page)',
  chain: 'Chain follower',
  expiry: 'Expiry',
  operator: 'Operator',
};

/** Every recorded change of the session, oldest first: when, what, from where to where, and by whom. */
function History({ entries }: { entries: readonly Entry[] }) {
  if (entries.length === 0)
    return <Empty>No changes recorded: the session is older than the step history.</Empty>;
  return (
    <DataTable
      caption="Step history"
      class="history"
      columns={['When', 'Change', 'Step', 'Status', 'By', 'Transaction']}
    >
      {entries.map((h) => (
        <tr key={h.version} data-version={h.version}>
          <td>
            <Time at={h.at} />
          </td>
          <td>
            {CHANGES[h.kind] ?? h.kind}
            {h.failureReason ? `: ${h.failureReason}` : null}
          </td>
          <td>{h.fromStep && h.fromStep !== h.toStep ? `${h.fromStep} → ${h.toStep}` : h.toStep}</td>
          <td>
            {h.fromStatus && h.fromStatus !== h.toStatus ? (
              <>
                <Status value={h.fromStatus} /> → <Status value={h.toStatus} />
              </>
            ) : (
              <Status value={h.toStatus} />
            )}
          </td>
          <td>
            {CAUSES[h.cause]}
            {h.actor ? (
              <>
                {' '}
                <Id value={h.actor} short />
              </>
            ) : null}
          </td>
          <td>{h.txHash ? <Id value={h.txHash} short /> : null}</td>
        </tr>
      ))}
    </DataTable>
  );
}
