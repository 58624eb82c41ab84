import { useMutation } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../graphql.ts';
import { field, useRead } from '../live.ts';
import { BASE, Link } from '../router.ts';
import { ChangeButton, Facts, Id, Outcome, Status, Time, Unanswered } from '../ui.tsx';
import { RecordHeading } from './common.tsx';
import { DataTable, ListState } from './list.tsx';

const MerchantQuery = graphql(`
  query Merchant($id: ID!) {
    merchant(id: $id) {
      id
      name
      displayName
      webhookUrl
      webhooksEnabled
      ipAllowlist
      tronPayoutWallet
      createdAt
      settlementWallets {
        network
        address
        updatedAt
      }
      apiKeys {
        id
        label
        active
        createdAt
        revokedAt
      }
    }
  }
`);

const Update = graphql(`
  mutation UpdateMerchant($id: ID!, $input: MerchantInput!) {
    updateMerchant(id: $id, input: $input) {
      id
      name
      displayName
      webhookUrl
      webhooksEnabled
      tronPayoutWallet
    }
  }
`);
const SetAllowlist = graphql(`
  mutation SetAllowlist($merchantId: ID!, $entries: [String!]!) {
    setIpAllowlist(merchantId: $merchantId, entries: $entries)
  }
`);
const SetWallet = graphql(`
  mutation SetWallet($merchantId: ID!, $network: String!, $address: String!) {
    setSettlementWallet(merchantId: $merchantId, network: $network, address: $address) {
      network
      address
    }
  }
`);
const IssueKey = graphql(`
  mutation IssueKey($merchantId: ID!, $label: String) {
    issueApiKey(merchantId: $merchantId, label: $label) {
      id
      secret
    }
  }
`);
const RevokeKey = graphql(`
  mutation RevokeKey($keyId: ID!) {
    revokeApiKey(keyId: $keyId) {
      id
      active
      revokedAt
    }
  }
`);

export function MerchantView({ id }: { id: string }) {
  const read = useRead({ query: MerchantQuery, variables: { id } });
  const { data, reload } = read;
  const [updated, update] = useMutation(Update);
  const [allowed, allow] = useMutation(SetAllowlist);
  const [walletSet, setWallet] = useMutation(SetWallet);
  const [issued, issue] = useMutation(IssueKey);
  const [revoked, revoke] = useMutation(RevokeKey);
  const [saved, setSaved] = useState<string | null>(null);
  if (!data) return <Unanswered read={read} what="the merchant" />;
  const m = data.merchant;
  return (
    <section>
      <RecordHeading list="merchants" listName="Merchants">
        {m.displayName ?? m.name}
      </RecordHeading>
      <Facts
        rows={[
          ['Id', <Id value={m.id} />],
          ['Name', m.name],
          ['Created', <Time at={m.createdAt} />],
          ['Sessions', <Link href={`${BASE}/sessions?merchant=${m.id}`}>Sessions of this merchant</Link>],
          ['Payouts', <Link href={`${BASE}/payouts?merchant=${m.id}`}>Payouts of this merchant</Link>],
        ]}
      />

      <h2>Profile and webhooks</h2>
      <form
        class="stack"
        aria-label="Profile and webhooks"
        onSubmit={async (e) => {
          e.preventDefault();
          const f = e.currentTarget;
          const result = await update({
            id,
            input: {
              name: field(f, 'name') ?? m.name,
              displayName: field(f, 'displayName') ?? '',
              webhookUrl: field(f, 'webhookUrl'),
              webhooksEnabled: new FormData(f).get('webhooksEnabled') === 'on',
              tronPayoutWallet: field(f, 'tronPayoutWallet'),
            },
          });
          setSaved(result.data ? 'Profile saved.' : null);
        }}
      >
        <label for="m-name">Name</label>
        <input id="m-name" name="name" value={m.name} required />
        <label for="m-display">Display name (shown to players; empty shows the name)</label>
        <input id="m-display" name="displayName" value={m.displayName ?? ''} />
        <label for="m-webhook">Webhook URL</label>
        <input id="m-webhook" name="webhookUrl" type="url" value={m.webhookUrl ?? ''} />
        <label class="check">
          <input type="checkbox" name="webhooksEnabled" checked={m.webhooksEnabled} /> Webhooks enabled
        </label>
        <label for="m-tron">Tron payout wallet</label>
        <input id="m-tron" name="tronPayoutWallet" value={m.tronPayoutWallet ?? ''} />
        <ChangeButton type="submit" busy={updated.fetching}>
          Save profile
        </ChangeButton>
        <Outcome error={updated.error} done={saved} />
      </form>

      <h2>IP allowlist</h2>
      <form
        class="stack"
        aria-label="IP allowlist"
        onSubmit={async (e) => {
          e.preventDefault();
          const text = String(new FormData(e.currentTarget).get('entries') ?? '');
          await allow({ merchantId: id, entries: text.split(/[\s,]+/).filter(Boolean) });
          reload();
        }}
      >
        <label for="m-allow">Addresses or CIDR ranges, one per line (empty allows any address)</label>
        <textarea id="m-allow" name="entries" rows={3} value={m.ipAllowlist.join('\n')} />
        <ChangeButton type="submit" busy={allowed.fetching}>
          Save allowlist
        </ChangeButton>
        <Outcome error={allowed.error} done={allowed.data ? 'Allowlist saved.' : null} />
      </form>

      <h2>Settlement wallets</h2>
      <ListState
        items={m.settlementWallets}
        empty="No settlement wallet: this merchant cannot take deposits yet. Add one per network below."
      >
        {(items) => (
          <DataTable columns={['Network', 'Address', 'Updated']}>
            {items.map((w) => (
              <tr key={w.network}>
                <td>{w.network}</td>
                <td>
                  <Id value={w.address} />
                </td>
                <td>
                  <Time at={w.updatedAt} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      <form
        class="inline"
        aria-label="Set a settlement wallet"
        onSubmit={async (e) => {
          e.preventDefault();
          const f = e.currentTarget;
          await setWallet({
            merchantId: id,
            network: field(f, 'network') ?? '',
            address: field(f, 'address') ?? '',
          });
          reload();
        }}
      >
        <label for="w-network">Network</label>
        <input id="w-network" name="network" required placeholder="eth" />
        <label for="w-address">Wallet address</label>
        <input id="w-address" name="address" required />
        <ChangeButton type="submit" busy={walletSet.fetching}>
          Set wallet
        </ChangeButton>
      </form>
      <Outcome error={walletSet.error} />

      <h2>API keys</h2>
      {issued.data ? (
        <div class="secret" role="status">
          <p>
            New key <Id value={issued.data.issueApiKey.id} /> — its secret is shown once, copy it now:
          </p>
          <Id value={issued.data.issueApiKey.secret} />
        </div>
      ) : null}
      <ListState items={m.apiKeys} empty="No API keys. Issue one for the merchant's server below.">
        {(items) => (
          <DataTable columns={['Key', 'Label', 'State', 'Created', { label: 'Actions', hidden: true }]}>
            {items.map((k) => (
              <tr key={k.id}>
                <td>
                  <Id value={k.id} />
                </td>
                <td>{k.label ?? <span class="muted">—</span>}</td>
                <td>
                  <Status value={k.active ? 'active' : 'revoked'} />{' '}
                  {k.revokedAt ? <Time at={k.revokedAt} /> : null}
                </td>
                <td>
                  <Time at={k.createdAt} />
                </td>
                <td>
                  {k.active ? (
                    <ChangeButton
                      busy={revoked.fetching}
                      onClick={async () => {
                        if (!confirm(`Revoke ${k.id}? Requests signed with it are refused at once.`)) return;
                        await revoke({ keyId: k.id });
                        reload();
                      }}
                    >
                      Revoke {k.label ?? k.id}
                    </ChangeButton>
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </ListState>
      <Outcome error={revoked.error} />
      <form
        class="inline"
        aria-label="Issue an API key"
        onSubmit={async (e) => {
          e.preventDefault();
          await issue({ merchantId: id, label: field(e.currentTarget, 'label') });
          reload();
        }}
      >
        <label for="k-label">Label</label>
        <input id="k-label" name="label" placeholder="production" />
        <ChangeButton type="submit" busy={issued.fetching}>
          Issue API key
        </ChangeButton>
      </form>
      <Outcome error={issued.error} />
    </section>
  );
}
