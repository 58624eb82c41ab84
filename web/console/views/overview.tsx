import { useMemo } from 'preact/hooks';
import { VolumeChart } from '../chart.tsx';
import { graphql } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { BASE, Link } from '../router.ts';
import { Amount, Empty, Unanswered } from '../ui.tsx';
import { DataTable, ListState } from './list.tsx';
import { Tick } from './system.tsx';

const OverviewQuery = graphql(`
  query Overview {
    overview {
      activity {
        network
        token
        window
        depositsCompleted
        depositsAmount
        payoutsPaid
        payoutsAmount
        payoutsFailed
        credits
        creditsAmount
      }
      attention {
        failedWebhooks
        failedPayouts24h
        stuckPayouts
        failedSweeps
      }
      volume {
        day
        network
        token
        amount
      }
    }
    unmatchedPayments(filter: { state: unmatched }, first: 100) {
      hasNextPage
      nodes {
        id
      }
    }
    sweepHolds(parked: true) {
      address
    }
    relayerWallets {
      network
      address
      outOfGasSince
      lastError
    }
    chainFollowers {
      network
      stream
      lagBlocks
      owner
      nodeProblem
    }
  }
`);

/** Followers further behind than this are listed as lagging. */
const LAGGING_BLOCKS = 20;

export function OverviewView() {
  const read = useRead({ query: OverviewQuery });
  const { data, reload } = read;
  useLive(Tick, {}, reload);
  const chart = useMemo(() => {
    const days = Array.from({ length: 14 }, (_, i) =>
      new Date(Date.now() - (13 - i) * 86_400_000).toISOString().slice(0, 10),
    );
    const keys = [...new Set((data?.overview.volume ?? []).map((v) => `${v.network} ${v.token}`))];
    const series = keys.map((key) => ({
      label: key,
      values: days.map(
        (d) =>
          data?.overview.volume.find((v) => v.day === d && `${v.network} ${v.token}` === key)?.amount ?? '0',
      ),
    }));
    return { days, series };
  }, [data]);
  if (!data) return <Unanswered read={read} what="the overview" />;
  const { activity, attention } = data.overview;
  const lagging = data.chainFollowers.filter((f) => (f.lagBlocks ?? 0) > LAGGING_BLOCKS || !f.owner);
  const nodeTrouble = [...new Set(data.chainFollowers.filter((f) => f.nodeProblem).map((f) => f.network))];
  const noGas = data.relayerWallets.filter((w) => w.outOfGasSince);
  const items: [number, string, string][] = [
    [attention.failedWebhooks, 'failed webhook deliveries', `${BASE}/webhooks?status=failed`],
    [attention.failedPayouts24h, 'payouts failed in the last 24 hours', `${BASE}/payouts?status=failed`],
    [
      attention.stuckPayouts,
      'payouts authorized or submitted and unchanged for 15 minutes',
      `${BASE}/payouts?status=submitted`,
    ],
    [attention.failedSweeps, 'failed sweeps', `${BASE}/deposits`],
    [
      data.sweepHolds.length,
      'forwarders parked after failing to sweep (retry them on the deposits view)',
      `${BASE}/deposits#sweep-holds`,
    ],
    [
      data.unmatchedPayments.nodes.length,
      `${data.unmatchedPayments.hasNextPage ? 'or more ' : ''}payments no session claimed (attach or mark refunded)`,
      `${BASE}/sessions?payments=unmatched`,
    ],
    [
      noGas.length,
      `relayer wallets out of gas (${noGas.map((w) => w.network).join(', ')})`,
      `${BASE}/system`,
    ],
    [
      lagging.length,
      `chain follower streams lagging or unowned (${[...new Set(lagging.map((f) => f.network))].join(', ')})`,
      `${BASE}/system`,
    ],
  ];
  items.push([
    nodeTrouble.length,
    `networks whose node is inconsistent, nothing settles there (${nodeTrouble.join(', ')})`,
    `${BASE}/system`,
  ]);
  const open = items.filter(([n]) => n > 0);
  return (
    <section>
      <h1>Overview</h1>
      <h2>Needs attention</h2>
      <ListState
        items={open}
        empty={
          <>
            Nothing needs attention: no failed webhooks or payouts, no stuck relays or parked sweeps, no
            unmatched payments, every follower keeping up.
          </>
        }
      >
        {(items) => (
          <ul class="attention-list">
            {items.map(([n, what, href]) => (
              <li key={what}>
                <Link href={href}>
                  <strong>{n}</strong> {what}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <h2>Activity</h2>
      <ListState items={activity} empty="No deposit, credit or payout completed in the last 7 days.">
        {(items) => (
          <DataTable
            caption="Activity per network and token"
            columns={[
              'Network',
              'Token',
              'Window',
              'Deposits completed',
              'Standing-address credits',
              'Payouts paid',
              'Payouts failed',
            ]}
          >
            {items.map((a) => (
              <tr key={`${a.network}/${a.token}/${a.window}`}>
                <td>{a.network}</td>
                <td>{a.token}</td>
                <td>{a.window === 'today' ? 'Today (UTC)' : 'Last 7 days'}</td>
                <td>
                  {a.depositsCompleted} · <Amount value={a.depositsAmount} token={a.token} />
                </td>
                <td>
                  {a.credits} · <Amount value={a.creditsAmount} token={a.token} />
                </td>
                <td>
                  {a.payoutsPaid} · <Amount value={a.payoutsAmount} token={a.token} />
                </td>
                <td class={a.payoutsFailed > 0 ? 'error-text' : undefined}>{a.payoutsFailed}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      <h2>Deposit volume, last 14 days</h2>
      {chart.series.length === 0 ? (
        <Empty>No deposits in the last 14 days to chart.</Empty>
      ) : (
        <VolumeChart days={chart.days} series={chart.series} />
      )}
    </section>
  );
}
