import { useMutation } from '@urql/preact';
import { graphql } from '../graphql.ts';
import { useRead } from '../live.ts';
import { Amount, ChangeButton, Id, Outcome, Time } from '../ui.tsx';
import { DataTable, ListState } from './list.tsx';

const Holds = graphql(`
  query SweepHolds {
    sweepHolds {
      network
      address
      token
      merchantId
      playerId
      reason
      attempts
      nextAttemptAt
      parked
      parkedAt
      deposits
      credited
      updatedAt
    }
  }
`);

const Retry = graphql(`
  mutation SweepRetry($network: String!, $address: String!, $token: String!) {
    sweepRetry(network: $network, address: $address, token: $token) {
      address
      attempts
      parked
    }
  }
`);

/**
 * Forwarders whose sweeps keep failing (a section of the deposits view): backing off, or parked after
 * five failures until an operator retries. Their credited deposits wait in the forwarder meanwhile.
 */
export function SweepHolds() {
  const holds = useRead({ query: Holds });
  return (
    <section id="sweep-holds" aria-labelledby="sweep-holds-heading">
      <h2 id="sweep-holds-heading">Sweeps held back</h2>
      <ListState
        read={holds}
        items={holds.data?.sweepHolds}
        empty="No forwarder is failing to sweep: every credited deposit moves on the next sweep."
      >
        {(items) => (
          <DataTable
            caption="Forwarders whose sweeps failed"
            columns={['Forwarder', 'Waiting', 'Reason', 'Attempts', 'Next attempt', 'Parked', 'Retry']}
          >
            {items.map((h) => (
              <tr
                key={`${h.network}/${h.address}/${h.token}`}
                data-hold={h.address}
                class={h.parked ? 'attention' : undefined}
              >
                <td>
                  <Id value={h.address} short />
                  <div class="small muted">
                    {h.network} · player {h.playerId}
                  </div>
                </td>
                <td>
                  {h.deposits} · <Amount value={h.credited} token={h.token} />
                </td>
                <td class="error-text">{h.reason}</td>
                <td>{h.attempts}</td>
                <td>{h.parked ? <span class="muted">only on retry</span> : <Time at={h.nextAttemptAt} />}</td>
                <td>{h.parked ? <Time at={h.parkedAt} /> : <span class="muted">no</span>}</td>
                <td>
                  <RetryButton network={h.network} address={h.address} token={h.token} done={holds.reload} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
    </section>
  );
}

function RetryButton(props: { network: string; address: string; token: string; done: () => void }) {
  const [state, retry] = useMutation(Retry);
  return (
    <span>
      <ChangeButton
        busy={state.fetching}
        onClick={() =>
          void retry({ network: props.network, address: props.address, token: props.token }).then((r) => {
            if (!r.error) props.done();
          })
        }
      >
        Retry
      </ChangeButton>
      <Outcome error={state.error} done={state.data ? 'Queued for the next sweep.' : null} />
    </span>
  );
}
