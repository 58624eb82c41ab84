import { useMutation } from '@urql/preact';
import { graphql } from '../graphql.ts';
import { useLive, useRead } from '../live.ts';
import { BASE, Link, useLoc } from '../router.ts';
import { ChangeButton, Empty, Id, Outcome, Status, Time, Unanswered } from '../ui.tsx';
import { Choice, Filters, Input, MerchantSelect, Pager } from './common.tsx';
import { DataTable } from './list.tsx';

const Deliveries = graphql(`
  query Deliveries($filter: WebhookDeliveryFilter, $after: String) {
    webhookDeliveries(filter: $filter, after: $after, first: 50) {
      hasNextPage
      endCursor
      nodes {
        id
        merchantId
        event
        eventId
        subjectId
        status
        targetUrl
        attemptCount
        lastStatusCode
        lastError
        nextAttemptAt
        deliveredAt
        createdAt
        attempts {
          number
          startedAt
          statusCode
          latencyMs
          responseBody
          error
        }
      }
    }
  }
`);

const Updated = graphql(`
  subscription DeliveryUpdated($merchantId: ID) {
    webhookDeliveryUpdated(merchantId: $merchantId) {
      id
      status
    }
  }
`);

const Resend = graphql(`
  mutation Resend($deliveryId: ID!) {
    resendWebhook(deliveryId: $deliveryId) {
      id
      status
    }
  }
`);

type Filter = {
  merchantId?: string | null;
  event?: string | null;
  status?: string | null;
  subjectId?: string | null;
};

/** Deliveries with every attempt, live, each with a resend. */
export function DeliveryTable({
  subjectId,
  filter = {},
  after,
}: {
  subjectId?: string;
  filter?: Filter;
  after?: string | null;
}) {
  const loc = useLoc();
  const full = { ...filter, ...(subjectId ? { subjectId } : {}) } as Filter;
  const read = useRead({ query: Deliveries, variables: { filter: full as never, after: after ?? null } });
  const { data, reload } = read;
  useLive(Updated, { merchantId: full.merchantId ?? null }, reload);
  const [resent, resend] = useMutation(Resend);
  if (!data) return <Unanswered read={read} what="webhook deliveries" />;
  const page = data.webhookDeliveries;
  if (page.nodes.length === 0)
    return (
      <Empty>
        No webhook delivery {subjectId ? 'for this object yet' : 'matches'}. Deliveries appear as events
        happen.
      </Empty>
    );
  return (
    <div>
      <Outcome
        error={resent.error}
        done={resent.data ? `Queued again as ${resent.data.resendWebhook.id}.` : null}
      />
      <DataTable
        caption="Webhook deliveries"
        class="deliveries"
        columns={['Delivery', 'Event', 'State', 'Attempts', 'Created', { label: 'Actions', hidden: true }]}
      >
        {page.nodes.map((d) => (
          <tr key={d.id} data-delivery={d.id}>
            <td>
              <Id value={d.id} short />
              <div class="muted small">{d.targetUrl}</div>
            </td>
            <td>
              {d.event}
              <div class="small">
                <SubjectLink id={d.subjectId} />
              </div>
            </td>
            <td>
              <Status value={d.status} />
              {d.nextAttemptAt && d.status !== 'delivered' ? (
                <div class="small">
                  next <Time at={d.nextAttemptAt} />
                </div>
              ) : null}
            </td>
            <td>
              {d.attempts.length === 0 ? (
                <span class="muted">none yet</span>
              ) : (
                <details>
                  <summary>
                    {d.attemptCount} attempt{d.attemptCount === 1 ? '' : 's'}, last{' '}
                    {d.lastStatusCode ?? d.lastError ?? '—'}
                  </summary>
                  <ol class="attempts">
                    {d.attempts.map((a) => (
                      <li key={a.number}>
                        #{a.number} <Time at={a.startedAt} />:{' '}
                        {a.statusCode !== null ? `HTTP ${a.statusCode}` : 'no answer'}
                        {a.latencyMs !== null ? `, ${a.latencyMs} ms` : ''}
                        {a.error ? <div class="error-text">{a.error}</div> : null}
                        {a.responseBody ? <pre>{a.responseBody}</pre> : null}
                      </li>
                    ))}
                  </ol>
                </details>
              )}
            </td>
            <td>
              <Time at={d.createdAt} />
            </td>
            <td>
              <ChangeButton
                busy={resent.fetching}
                onClick={() => void resend({ deliveryId: d.id }).then(reload)}
              >
                Resend
              </ChangeButton>
            </td>
          </tr>
        ))}
      </DataTable>
      {subjectId ? null : <Pager loc={loc} page={page} />}
    </div>
  );
}

function SubjectLink({ id }: { id: string }) {
  if (id.startsWith('pb_')) return <Link href={`${BASE}/batches/${id}`}>{id}</Link>;
  if (id.startsWith('cs_')) return <Link href={`${BASE}/sessions/${id}`}>{id}</Link>;
  if (id.startsWith('po_')) return <Link href={`${BASE}/payouts/${id}`}>{id}</Link>;
  return <Id value={id} short />;
}

export function WebhooksView() {
  const loc = useLoc();
  const q = (k: string) => loc.query.get(k);
  return (
    <section>
      <h1>Webhooks</h1>
      <Filters loc={loc}>
        <MerchantSelect value={q('merchant')} />
        <Input name="event" label="Event" value={q('event')} placeholder="payment.completed" />
        <Choice
          name="status"
          label="State"
          value={q('status')}
          options={['pending', 'delivering', 'delivered', 'failed']}
        />
        <Input name="subject" label="Object id" value={q('subject')} />
      </Filters>
      <DeliveryTable
        filter={{
          merchantId: q('merchant'),
          event: q('event'),
          status: q('status'),
          subjectId: q('subject'),
        }}
        after={q('after')}
      />
    </section>
  );
}
