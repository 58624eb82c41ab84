import { useMutation, useQuery } from '@urql/preact';
import { graphql } from '../graphql.ts';
import { BASE, Link, navigate } from '../router.ts';
import { ChangeButton, Empty, Failure, Id, Loading, Outcome, Time } from '../ui.tsx';
import { DataTable } from './list.tsx';

const Merchants = graphql(`
  query Merchants {
    merchants {
      id
      name
      displayName
      webhookUrl
      webhooksEnabled
      createdAt
    }
  }
`);

const CreateMerchant = graphql(`
  mutation CreateMerchant($name: String!, $webhookUrl: String) {
    createMerchant(name: $name, webhookUrl: $webhookUrl) {
      id
    }
  }
`);

export function MerchantsView() {
  const [{ data, fetching, error }, refetch] = useQuery({ query: Merchants });
  const [created, create] = useMutation(CreateMerchant);
  return (
    <section>
      <h1>Merchants</h1>
      {error ? <Failure error={error} retry={() => refetch({ requestPolicy: 'network-only' })} /> : null}
      {!data && fetching ? <Loading what="merchants" /> : null}
      {data && data.merchants.length === 0 ? (
        <Empty>No merchants yet. Create the first one below.</Empty>
      ) : null}
      {data && data.merchants.length > 0 ? (
        <DataTable caption="Merchants" columns={['Name', 'Id', 'Webhooks', 'Created']}>
          {data.merchants.map((m) => (
            <tr key={m.id}>
              <td>
                <Link href={`${BASE}/merchants/${m.id}`}>{m.displayName ?? m.name}</Link>
                {m.displayName ? <span class="muted"> ({m.name})</span> : null}
              </td>
              <td>
                <Id value={m.id} />
              </td>
              <td>{m.webhookUrl ? (m.webhooksEnabled ? m.webhookUrl : `off — ${m.webhookUrl}`) : 'none'}</td>
              <td>
                <Time at={m.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <h2>New merchant</h2>
      <form
        class="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const webhookUrl = String(form.get('webhookUrl') ?? '').trim() || null;
          const result = await create({ name: String(form.get('name') ?? '').trim(), webhookUrl });
          if (result.data) navigate(`${BASE}/merchants/${result.data.createMerchant.id}`);
        }}
      >
        <label for="new-name">Name</label>
        <input id="new-name" name="name" required />
        <label for="new-webhook">Webhook URL (optional)</label>
        <input id="new-webhook" name="webhookUrl" type="url" placeholder="https://shop.example/webhooks" />
        <ChangeButton type="submit" busy={created.fetching}>
          Create merchant
        </ChangeButton>
        <Outcome error={created.error} />
      </form>
    </section>
  );
}
