import { useQuery } from '@urql/preact';
import { graphql } from '../graphql.ts';
import { useRead } from '../live.ts';
import { useLoc } from '../router.ts';
import { Amount, Failure, Id, Loading, Status, Time } from '../ui.tsx';
import { Choice, Filters, Input, MerchantSelect, Pager } from './common.tsx';
import { DataTable, ListState } from './list.tsx';
import { SweepHolds } from './sweepholds.tsx';

const Deposits = graphql(`
  query Deposits($merchantId: ID, $network: String, $playerId: String, $status: DepositStatus, $after: String) {
    deposits(merchantId: $merchantId, network: $network, playerId: $playerId, status: $status, after: $after, first: 50) {
      hasNextPage
      endCursor
      nodes {
        id
        merchantId
        network
        token
        playerId
        address
        amount
        fee
        credited
        status
        txHash
        block
        createdAt
        creditedAt
        sweepId
        sweptAt
      }
    }
    sweeps(first: 20) {
      nodes {
        id
        network
        status
        items
        txHash
        minedBlock
        lastError
        createdAt
      }
    }
    sweepTotals {
      network
      token
      sweeps
      swept
      fees
    }
  }
`);

const Addresses = graphql(`
  query Addresses($merchantId: ID!, $playerId: String) {
    depositAddresses(merchantId: $merchantId, playerId: $playerId) {
      id
      network
      playerId
      address
      wallet
      deployed
      createdAt
    }
  }
`);

/** Standing addresses: their deposits (credits and fees), the sweeps, and a player's addresses. */
export function DepositsView() {
  const loc = useLoc();
  const q = (k: string) => loc.query.get(k);
  const status = q('status') as 'pending' | 'credited' | 'below_fee' | null;
  const deposits = useRead({
    query: Deposits,
    variables: {
      merchantId: q('merchant'),
      network: q('network'),
      playerId: q('player'),
      status,
      after: q('after'),
    },
  });
  const data = deposits.data;
  const [addresses] = useQuery({
    query: Addresses,
    variables: { merchantId: q('merchant') ?? '', playerId: q('player') },
    pause: !q('merchant') || !q('player'),
  });
  return (
    <section>
      <h1>Deposits to standing addresses</h1>
      <Filters loc={loc}>
        <MerchantSelect value={q('merchant')} />
        <Input name="network" label="Network" value={q('network')} placeholder="eth" />
        <Input name="player" label="Player id" value={q('player')} />
        <Choice
          name="status"
          label="Status"
          value={q('status')}
          options={['pending', 'credited', 'below_fee']}
        />
      </Filters>
      {deposits.error ? <Failure error={deposits.error} retry={deposits.reload} /> : null}
      {!data && deposits.fetching ? <Loading what="deposits" /> : null}
      {q('merchant') && q('player') ? (
        <div>
          <h2>Addresses of player {q('player')}</h2>
          <ListState items={addresses.data?.depositAddresses} empty="No address issued to this player.">
            {(items) => (
              <DataTable
                caption={`Addresses of player ${q('player')}`}
                columns={['Network', 'Address', 'Settles to', 'On chain', 'Issued']}
              >
                {items.map((a) => (
                  <tr key={a.id}>
                    <td>{a.network}</td>
                    <td>
                      <Id value={a.address} />
                    </td>
                    <td>
                      <Id value={a.wallet} short />
                    </td>
                    <td>{a.deployed ? 'deployed' : 'not yet (first sweep deploys it)'}</td>
                    <td>
                      <Time at={a.createdAt} />
                    </td>
                  </tr>
                ))}
              </DataTable>
            )}
          </ListState>
        </div>
      ) : (
        <p class="muted small">Choose a merchant and a player id to see the player's issued addresses.</p>
      )}
      {data ? (
        <div>
          <h2>Credits and fees</h2>
          <ListState items={data.deposits.nodes} empty="No deposit to a standing address matches.">
            {(nodes) => (
              <DataTable
                caption="Deposits"
                columns={['Deposit', 'Status', 'Amount', 'Fee', 'Credited', 'Player', 'Transaction', 'Swept']}
              >
                {nodes.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <Id value={d.id} short />
                      <div class="small muted">{d.network}</div>
                    </td>
                    <td>
                      <Status value={d.status} />
                    </td>
                    <td>
                      <Amount value={d.amount} token={d.token} />
                    </td>
                    <td>
                      <Amount value={d.fee} token={d.token} />
                    </td>
                    <td>
                      <Amount value={d.credited} token={d.token} /> <Time at={d.creditedAt} />
                    </td>
                    <td>{d.playerId}</td>
                    <td>
                      <Id value={d.txHash} short /> <span class="small">#{d.block}</span>
                    </td>
                    <td>{d.sweepId ? <Time at={d.sweptAt} /> : <span class="muted">not yet</span>}</td>
                  </tr>
                ))}
              </DataTable>
            )}
          </ListState>
          <Pager loc={loc} page={data.deposits} />
          <SweepHolds />
          <h2>Sweeps</h2>
          <ListState items={data.sweeps.nodes} empty="No sweep has run yet.">
            {(nodes) => (
              <DataTable
                caption="Sweeps"
                columns={['Sweep', 'Network', 'Status', 'Items', 'Transaction', 'Created']}
              >
                {nodes.map((s) => (
                  <tr key={s.id} class={s.status === 'failed' ? 'attention' : undefined}>
                    <td>
                      <Id value={s.id} short />
                    </td>
                    <td>{s.network}</td>
                    <td>
                      <Status value={s.status} />
                      {s.lastError ? <div class="error-text small">{s.lastError}</div> : null}
                    </td>
                    <td>{s.items}</td>
                    <td>{s.txHash ? <Id value={s.txHash} short /> : <span class="muted">—</span>}</td>
                    <td>
                      <Time at={s.createdAt} />
                    </td>
                  </tr>
                ))}
              </DataTable>
            )}
          </ListState>
          {data.sweepTotals.length > 0 ? (
            <DataTable
              caption="Swept so far"
              showCaption
              columns={['Network', 'Sweeps', 'To settlement wallets', 'Fees']}
            >
              {data.sweepTotals.map((t) => (
                <tr key={`${t.network}/${t.token}`}>
                  <td>{t.network}</td>
                  <td>{t.sweeps}</td>
                  <td>
                    <Amount value={t.swept} token={t.token} />
                  </td>
                  <td>
                    <Amount value={t.fees} token={t.token} />
                  </td>
                </tr>
              ))}
            </DataTable>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
