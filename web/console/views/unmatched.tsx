import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../graphql.ts';
import { useRead } from '../live.ts';
import { BASE, Link, type Location, navigate, withQuery } from '../router.ts';
import { Amount, ChangeButton, Id, Outcome, Status, Time } from '../ui.tsx';
import { DataTable, ListState } from './list.tsx';

const UnmatchedList = graphql(`
  query UnmatchedList($state: UnmatchedPaymentState) {
    unmatchedPayments(filter: { state: $state }, first: 100) {
      hasNextPage
      nodes {
        id
        network
        txHash
        payer
        merchantId
        orderRef
        amount
        amountRaw
        tokenSymbol
        state
        attachedSessionId
        resolvedBy
        note
        seenAt
      }
    }
  }
`);

const Attach = graphql(`
  mutation AttachPayment($paymentId: ID!, $sessionId: ID!) {
    attachPayment(paymentId: $paymentId, sessionId: $sessionId) {
      id
      state
      attachedSessionId
    }
  }
`);

const Refund = graphql(`
  mutation MarkPaymentRefunded($paymentId: ID!) {
    markPaymentRefunded(paymentId: $paymentId) {
      id
      state
    }
  }
`);

const STATES = ['unmatched', 'attached', 'refunded'] as const;
type State = (typeof STATES)[number];

/**
 * Router payments no session claimed (a section of /console/sessions, `?payments=<state>`): an
 * operator attaches one to a session or records that it was refunded.
 */
export function UnmatchedPayments({ loc }: { loc: Location }) {
  const asked = loc.query.get('payments');
  const state: State = STATES.includes(asked as State) ? (asked as State) : 'unmatched';
  const payments = useRead({ query: UnmatchedList, variables: { state } });
  const page = payments.data?.unmatchedPayments;
  return (
    <section aria-labelledby="unmatched-heading">
      <h2 id="unmatched-heading">Payments no session claimed</h2>
      <p class="field">
        <label for="f-payments">Show</label>
        <select
          id="f-payments"
          value={state}
          onChange={(e) => navigate(withQuery(loc, { payments: e.currentTarget.value }))}
        >
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </p>
      <ListState
        read={payments}
        what="unmatched payments"
        items={page?.nodes}
        empty={`No ${state} payment: every router payment so far belongs to its session.`}
      >
        {(nodes) => (
          <DataTable
            caption={`Payments ${state}`}
            columns={['Seen', 'Amount', 'Network', 'Payer', 'Order ref', 'Transaction', 'State', 'Decision']}
          >
            {nodes.map((p) => (
              <tr key={p.id} data-payment={p.id}>
                <td>
                  <Time at={p.seenAt} />
                </td>
                <td>
                  {p.amount ? (
                    <Amount value={p.amount} token={p.tokenSymbol} />
                  ) : (
                    <span>{p.amountRaw} base units (unknown token)</span>
                  )}
                </td>
                <td>{p.network}</td>
                <td>
                  <Id value={p.payer} short />
                </td>
                <td>
                  <Id value={p.orderRef} short />
                </td>
                <td>
                  <Id value={p.txHash} short />
                </td>
                <td>
                  <Status value={p.state} />
                </td>
                <td>
                  {p.state === 'unmatched' ? (
                    <Decide id={p.id} done={payments.reload} />
                  ) : (
                    <span>
                      {p.attachedSessionId ? (
                        <Link href={`${BASE}/sessions/${p.attachedSessionId}`}>{p.attachedSessionId}</Link>
                      ) : null}{' '}
                      {p.resolvedBy ? `by ${p.resolvedBy}` : null}
                      {p.note ? ` · ${p.note}` : null}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      {page?.hasNextPage ? <p class="muted small">The 100 newest are shown.</p> : null}
    </section>
  );
}

/** Attach to a session (by its id) or mark refunded. */
function Decide({ id, done }: { id: string; done: () => void }) {
  const [attached, attach] = useMutation(Attach);
  const [refunded, refund] = useMutation(Refund);
  const [session, setSession] = useState('');
  const after = (r: { error?: unknown }) => {
    if (!r.error) done();
  };
  return (
    <form
      class="inline"
      onSubmit={(e) => {
        e.preventDefault();
        if (session.trim()) void attach({ paymentId: id, sessionId: session.trim() }).then(after);
      }}
    >
      <input
        aria-label={`Session to attach payment ${id} to`}
        placeholder="session id"
        value={session}
        onInput={(e) => setSession(e.currentTarget.value)}
        required
      />
      <ChangeButton type="submit" busy={attached.fetching}>
        Attach
      </ChangeButton>
      <ChangeButton
        busy={refunded.fetching}
        onClick={() => {
          if (!confirm(`Record payment ${id} as refunded to its payer? This cannot be undone.`)) return;
          void refund({ paymentId: id }).then(after);
        }}
      >
        Mark refunded
      </ChangeButton>
      <Outcome error={attached.error ?? refunded.error} />
    </form>
  );
}
