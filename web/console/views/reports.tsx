import { useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { tokenStore } from '../client.ts';
import { graphql } from '../graphql.ts';
import { BASE, Link, useLoc } from '../router.ts';
import { Amount, Empty, Failure, Id, Loading, Time } from '../ui.tsx';
import { Filters, Input, MerchantSelect } from './common.tsx';
import { DataTable, ListState } from './list.tsx';

const Report = graphql(`
  query Report($merchantId: ID!, $from: String!, $to: String!) {
    settlementReport(merchantId: $merchantId, from: $from, to: $to) {
      truncated
      totals {
        network
        token
        movements
        opening
        amountIn
        fee
        amountOut
        closing
      }
      rows {
        kind
        objectType
        objectId
        occurredAt
        network
        token
        amountIn
        fee
        amountOut
        txHash
        block
      }
    }
  }
`);

const today = () => new Date().toISOString().slice(0, 10);

/** Downloads the CSV with the operator's token (a plain link could not carry it). */
async function download(merchant: string, from: string, to: string): Promise<string | null> {
  const res = await fetch(`/reports/settlement.csv?${new URLSearchParams({ merchant, from, to })}`, {
    headers: { authorization: `Bearer ${tokenStore.get() ?? ''}` },
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    return body?.error?.message ?? `the API answered ${res.status}`;
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = `settlement-${merchant}-${from}-${to}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return null;
}

const OBJECT_PATH: Record<string, string> = { session: 'sessions', payout: 'payouts' };

export function ReportsView() {
  const loc = useLoc();
  const merchant = loc.query.get('merchant');
  const from = loc.query.get('from') ?? today();
  const to = loc.query.get('to') ?? today();
  const [{ data, fetching, error }, refetch] = useQuery({
    query: Report,
    variables: { merchantId: merchant ?? '', from, to },
    pause: !merchant,
  });
  const [csvError, setCsvError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const report = data?.settlementReport;
  return (
    <section>
      <h1>Settlement report</h1>
      <p class="muted">
        One row per money movement over whole UTC days. Per network and token: opening + in − out = closing;
        fees are what the fee wallet took from standing-address deposits.
      </p>
      <Filters loc={loc}>
        <MerchantSelect value={merchant} required />
        <Input name="from" label="From (UTC day)" type="date" value={from} required />
        <Input name="to" label="To (UTC day, included)" type="date" value={to} required />
      </Filters>
      {!merchant ? <Empty>Choose a merchant and a period, then Apply.</Empty> : null}
      {error ? <Failure error={error} retry={() => refetch({ requestPolicy: 'network-only' })} /> : null}
      {merchant && !data && fetching ? <Loading what="the report" /> : null}
      {report ? (
        <div>
          <p>
            <button
              type="button"
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                setCsvError(await download(merchant!, from, to).catch((e: Error) => e.message));
                setBusy(false);
              }}
            >
              {busy ? 'Preparing CSV…' : 'Download CSV'}
            </button>
          </p>
          {csvError ? <Failure error={`The CSV could not be downloaded: ${csvError}`} /> : null}
          <h2>Totals</h2>
          <ListState
            items={report.totals}
            empty="No money moved for this merchant up to the end of this period."
          >
            {(items) => (
              <DataTable
                caption="Totals per network and token"
                columns={[
                  'Network',
                  'Token',
                  { label: 'Opening', class: 'num' },
                  { label: 'In', class: 'num' },
                  { label: 'Fees', class: 'num' },
                  { label: 'Out', class: 'num' },
                  { label: 'Closing', class: 'num' },
                  { label: 'Movements', class: 'num' },
                ]}
              >
                {items.map((t) => (
                  <tr key={`${t.network}/${t.token}`}>
                    <td>{t.network}</td>
                    <td>{t.token}</td>
                    <td class="num">
                      <Amount value={t.opening} />
                    </td>
                    <td class="num">
                      <Amount value={t.amountIn} />
                    </td>
                    <td class="num">
                      <Amount value={t.fee} />
                    </td>
                    <td class="num">
                      <Amount value={t.amountOut} />
                    </td>
                    <td class="num">
                      <Amount value={t.closing} token={t.token} />
                    </td>
                    <td class="num">{t.movements}</td>
                  </tr>
                ))}
              </DataTable>
            )}
          </ListState>
          <h2>Movements</h2>
          {report.truncated ? (
            <p class="note">Only the first 1000 movements are shown here; the CSV has them all.</p>
          ) : null}
          <ListState items={report.rows} empty="No movement in this period.">
            {(items) => (
              <DataTable
                caption="Movements"
                columns={[
                  'When',
                  'Kind',
                  'Object',
                  'Network',
                  { label: 'In', class: 'num' },
                  { label: 'Fee', class: 'num' },
                  { label: 'Out', class: 'num' },
                  'Transaction',
                ]}
              >
                {items.map((r) => (
                  <tr key={`${r.kind}/${r.objectId}`}>
                    <td>
                      <Time at={r.occurredAt} />
                    </td>
                    <td>{r.kind}</td>
                    <td>
                      {OBJECT_PATH[r.objectType] ? (
                        <Link href={`${BASE}/${OBJECT_PATH[r.objectType]}/${r.objectId}`}>{r.objectId}</Link>
                      ) : (
                        <Id value={r.objectId} short />
                      )}
                    </td>
                    <td>{r.network}</td>
                    <td class="num">
                      <Amount value={r.amountIn} token={r.token} />
                    </td>
                    <td class="num">
                      <Amount value={r.fee} token={r.token} />
                    </td>
                    <td class="num">
                      <Amount value={r.amountOut} token={r.token} />
                    </td>
                    <td>{r.txHash ? <Id value={r.txHash} short /> : <span class="muted">—</span>}</td>
                  </tr>
                ))}
              </DataTable>
            )}
          </ListState>
        </div>
      ) : null}
    </section>
  );
}
