import { useQuery } from '@urql/preact';
import { graphql } from '../graphql.ts';
import { useLive } from '../live.ts';
import { BASE, Link } from '../router.ts';
import { Amount, Facts, Failure, Id, Loading, Status, Time } from '../ui.tsx';
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
  const [{ data, fetching, error }, refetch] = useQuery({ query: SessionQuery, variables: { id } });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useLive(Changed, { id }, reload);
  if (error && !data) return <Failure error={error} retry={reload} />;
  if (!data) return fetching ? <Loading what="the session" /> : null;
  const s = data.session;
  const head = data.chainFollowers.find((f) => f.network === s.network && f.stream === 'sessions')?.headBlock;
  const confirmations = s.blockNumber !== null && head != null ? Math.max(0, head - s.blockNumber + 1) : null;
  // What the stored times tell (a full step log is not kept by the API yet).
  const timeline: [string, string | null][] = [
    ['Created', s.createdAt],
    [s.status === 'failed' ? `Failed (${s.failureReason ?? 'no reason'})` : 'Settled', s.settledAt],
    [`Last change, now at step ${s.step}`, s.updatedAt],
  ];
  return (
    <section>
      <p class="crumbs">
        <Link href={`${BASE}/sessions`}>Sessions</Link> /
      </p>
      <h1>
        Session <Id value={s.id} />
      </h1>
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
      <ol class="timeline">
        {timeline
          .filter(([, at]) => at)
          .map(([what, at]) => (
            <li key={what}>
              <Time at={at} /> — {what}
            </li>
          ))}
      </ol>
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
