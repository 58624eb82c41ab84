import { graphql } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { Amount, Id, Time, Unanswered } from '../ui.tsx';
import { DataTable, ListState } from './list.tsx';

const SystemQuery = graphql(`
  query System {
    version
    chainFollowers {
      network
      stream
      headBlock
      finalizedBlock
      cursorBlock
      lagBlocks
      lagSeconds
      owner
      since
      tickedAt
      nodeFinalizedBlock
      nodeProblem
      nodeProblemSince
    }
    relayerWallets {
      network
      address
      balance
      queued
      submitted
      outOfGasSince
      lastError
    }
    workerJobs {
      task
      waiting
      running
      failing
      lastError
    }
  }
`);

/** A tick every few seconds over the WebSocket: the view re-reads on each, so it stays live. */
export const Tick = graphql(`
  subscription Tick {
    heartbeat(intervalSeconds: 3)
  }
`);

export function SystemView() {
  const read = useRead({ query: SystemQuery });
  const { data, reload } = read;
  useLive(Tick, {}, reload);
  if (!data) return <Unanswered read={read} what="the system state" />;
  const troubled = data.chainFollowers.filter((f) => f.nodeProblem);
  return (
    <section>
      <h1>System</h1>
      <p>
        Service version <code>{data.version}</code>. This view refreshes every few seconds.
      </p>
      <h2>Chain followers</h2>
      {troubled.length > 0 ? (
        <div class="failure" role="alert">
          <p>
            <strong>The node disagrees with what was followed:</strong> these streams hold back until it is
            fixed (check the node, or point the network at another).
          </p>
          <ul>
            {troubled.map((f) => (
              <li key={`${f.network}/${f.stream}`} data-node-problem={f.network}>
                {f.network} {f.stream}: {f.nodeProblem}
                {f.nodeProblemSince ? (
                  <>
                    {' '}
                    — since <Time at={f.nodeProblemSince} />
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <ListState
        items={data.chainFollowers}
        empty="No chain follower has run yet: start the worker (npm run worker, or npm start runs one)."
      >
        {(items) => (
          <DataTable columns={['Network', 'Stream', 'Head', 'Final', 'Cursor', 'Lag', 'Owner', 'Last tick']}>
            {items.map((f) => (
              <tr
                key={`${f.network}/${f.stream}`}
                class={(f.lagBlocks ?? 0) > 20 || f.nodeProblem ? 'attention' : undefined}
              >
                <td>{f.network}</td>
                <td>{f.stream}</td>
                <td>{f.headBlock ?? '—'}</td>
                <td>
                  {f.finalizedBlock ?? '—'}
                  {f.nodeFinalizedBlock !== null && f.nodeFinalizedBlock !== f.finalizedBlock ? (
                    <div class="small muted">node: {f.nodeFinalizedBlock}</div>
                  ) : null}
                </td>
                <td>{f.cursorBlock}</td>
                <td>
                  {f.lagBlocks ?? '—'} blocks{f.lagSeconds !== null ? `, ${f.lagSeconds} s` : ''}
                </td>
                <td>{f.owner ? <Id value={f.owner} short /> : <span class="muted">nobody</span>}</td>
                <td>
                  <Time at={f.tickedAt} />
                  {f.nodeProblem ? <div class="error-text small">node problem</div> : null}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      <h2>Relayer wallets</h2>
      <ListState items={data.relayerWallets} empty="No relayer wallet is configured.">
        {(items) => (
          <DataTable columns={['Network', 'Address', 'Balance', 'Queued', 'Pending', 'Gas']}>
            {items.map((w) => (
              <tr key={w.network} class={w.outOfGasSince ? 'attention' : undefined}>
                <td>{w.network}</td>
                <td>
                  <Id value={w.address} short />
                </td>
                <td>
                  {w.balance !== null ? (
                    <Amount value={w.balance} />
                  ) : (
                    <span class="error-text">{w.lastError ?? 'unknown'}</span>
                  )}
                </td>
                <td>{w.queued}</td>
                <td>{w.submitted}</td>
                <td>
                  {w.outOfGasSince ? (
                    <span class="error-text">
                      out of gas since <Time at={w.outOfGasSince} /> — fund this address
                    </span>
                  ) : (
                    'ok'
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      <h2>Worker jobs</h2>
      <ListState
        items={data.workerJobs}
        empty="No job waits: the queue is empty (or no worker has started yet)."
      >
        {(items) => (
          <DataTable columns={['Task', 'Waiting', 'Running', 'Failing', 'Last error']}>
            {items.map((j) => (
              <tr key={j.task} class={j.failing > 0 ? 'attention' : undefined}>
                <td>{j.task}</td>
                <td>{j.waiting}</td>
                <td>{j.running}</td>
                <td>{j.failing}</td>
                <td class="error-text small">{j.lastError ?? ''}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
    </section>
  );
}
