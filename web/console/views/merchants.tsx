import { useMutation } from '@urql/preact';
import { graphql } from '../graphql.ts';
import { useRead } from '../live.ts';
import { BASE, Link, navigate } from '../router.ts';
import { ChangeButton, Id, Outcome, Time } from '../ui.tsx';
import { DataTable, ListState } from './list.tsx';

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
  const merchants = useRead({ query: Merchants });
  const [created, create] = useMutation(CreateMerchant);
  return (
    <section>
      <h1>Merchants</h1>
      <ListState
        read={merchants}
        what="merchants"
        items={merchants.data?.merchants}
        empty="No merchants yet. Create the first one below."
      >
        {(items) => (
          <DataTable caption="Merchants" columns={['Name', 'Id', 'Webhooks', 'Created']}>
            {items.map((m) => (
              <tr key={m.id}>
                <td>
                  <Link href={`${BASE}/merchants/${m.id}`}>{m.displayName ?? m.name}</Link>
                  {m.displayName ? <span class="muted"> ({m.name})</span> : null}
                </td>
                <td>
                  <Id value={m.id} />
                </td>
                <td>
                  {m.webhookUrl ? (m.webhooksEnabled ? m.webhookUrl : `off — ${m.webhookUrl}`) : 'none'}
                </td>
                <td>
                  <Time at={m.createdAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
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
