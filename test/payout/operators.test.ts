import { Wallet } from 'ethers';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { payoutChanged } from '../../src/modules/payout/payout.transition.ts';
import { cliFor } from '../support/cli.ts';
import { type PayoutFixture, payoutFixture, signOrder } from './support.ts';

/** What operators see of payouts: GraphQL listing with filters, one payout, live changes, the CLI. */

let f: PayoutFixture;
let token: string;
beforeAll(async () => {
  f = await payoutFixture();
  await f.approve('USDT');
  token = await f.t.operatorToken();
});
afterAll(() => f?.close());

const create = async (amount: string) =>
  (
    await f.call('/v1/payouts', {
      network: 'eth',
      token: 'USDT',
      amount,
      recipient: Wallet.createRandom().address,
    })
  ).body;

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

it('lists payouts with filters, shows one with its order, and pushes every change live', async () => {
  const a = await create('1');
  const b = await create('2');
  const client = createClient({
    url: `${f.t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
  });
  const seen: { id: string; status: string }[] = [];
  const stop = client.subscribe<{ payoutChanged: { id: string; status: string } }>(
    { query: 'subscription ($id: ID) { payoutChanged(id: $id) { id status } }', variables: { id: b.payout } },
    { next: (v) => seen.push(v.data!.payoutChanged), error: () => {}, complete: () => {} },
  );
  try {
    await until(() => f.t.app.pubsub.subscribers(payoutChanged) === 1 && f.t.app.pubsub.listening);
    const signature = await signOrder(f.payer, b.typed_data);
    await f.call('/v1/payouts/authorize', {
      payout: a.payout,
      signature: await signOrder(f.payer, a.typed_data),
    });
    await f.call('/v1/payouts/authorize', { payout: b.payout, signature });
    await until(() => seen.length > 0);
    expect(seen).toEqual([{ id: b.payout, status: 'authorized' }]);
  } finally {
    stop();
    await client.dispose();
  }

  const list = await f.t.graphql(
    token,
    `query ($m: ID) { payouts(filter: { merchantId: $m, status: "authorized", network: "eth" }, first: 1) {
       nodes { id status amount } hasNextPage endCursor } }`,
    { m: f.merchant.id },
  );
  expect(list.errors).toBeUndefined();
  expect(list.data.payouts.nodes).toEqual([{ id: b.payout, status: 'authorized', amount: '2' }]);
  expect(list.data.payouts.hasNextPage).toBe(true);
  const next = await f.t.graphql(
    token,
    `query ($after: String) { payouts(filter: { status: "authorized" }, first: 5, after: $after) { nodes { id } } }`,
    { after: list.data.payouts.endCursor },
  );
  expect(next.data.payouts.nodes.map((n: { id: string }) => n.id)).toEqual([a.payout]);
  const future = await f.t.graphql(
    token,
    `query ($d: DateTime) { payouts(filter: { createdAfter: $d }) { nodes { id } } }`,
    { d: new Date(Date.now() + 60_000).toISOString() },
  );
  expect(future.data.payouts.nodes).toEqual([]);
  const one = await f.t.graphql(
    token,
    `query ($id: ID!) { payout(id: $id) { id payer router nonce deadline typedData } }`,
    { id: b.payout },
  );
  expect(one.data.payout.typedData).toEqual(b.typed_data);
  expect(one.data.payout.nonce).toBe(b.typed_data.message.nonce);

  // Merchants cannot use the operator queries.
  const asMerchant = await f.t.graphql('nope', '{ payouts { nodes { id } } }');
  expect(asMerchant.errors?.[0]?.extensions?.code).toBe('unauthorized');

  const cli = cliFor(f.t);
  const printed = (await cli('payouts:list', '--merchant', f.merchant.id, '--status', 'authorized')) as {
    id: string;
  }[];
  expect(printed.map((p) => p.id)).toEqual([b.payout, a.payout]);
  expect(await cli('payout:show', '--payout', a.payout)).toMatchObject({
    id: a.payout,
    status: 'authorized',
    amount: '1',
    relays: [{ status: 'queued', transactions: [] }],
  });
  const relayers = (await cliFor(f.t, f.networks)('relayers')) as Record<string, unknown>[];
  expect(relayers).toEqual([
    expect.objectContaining({ network: 'eth', address: f.relayer.address, queued: 2, outOfGasSince: null }),
  ]);
  expect(Number(relayers[0]!.balance)).toBeGreaterThan(0);
}, 90_000);

it('pushes a batch as its items change, and shows it with its items', async () => {
  await f.approve('USDT', undefined, f.contracts.batchPayoutRouter);
  const { body } = await f.call('/v1/payouts/batch', {
    network: 'eth',
    token: 'USDT',
    items: [1, 2].map(() => ({ recipient: Wallet.createRandom().address, amount: '1' })),
  });
  const client = createClient({
    url: `${f.t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
  });
  const seen: { status: string; items: { status: string }[] }[] = [];
  const stop = client.subscribe<{ payoutBatchChanged: (typeof seen)[number] }>(
    {
      query: 'subscription ($id: ID!) { payoutBatchChanged(id: $id) { status items { status } } }',
      variables: { id: body.batch },
    },
    { next: (v) => seen.push(v.data!.payoutBatchChanged), error: () => {}, complete: () => {} },
  );
  try {
    await until(() => f.t.app.pubsub.subscribers(payoutChanged) === 1 && f.t.app.pubsub.listening);
    // Another payout's change is not this batch's.
    await create('1');
    const signature = await signOrder(f.payer, body.typed_data);
    await f.call('/v1/payouts/batch/authorize', { batch: body.batch, signature });
    await until(() => seen.length >= 2);
    expect(
      seen.every((b) => b.status === 'authorized' && b.items.every((i) => i.status === 'authorized')),
    ).toBe(true);
  } finally {
    stop();
    await client.dispose();
  }
  const listed = await f.t.graphql(
    token,
    '{ payoutBatches(first: 5) { nodes { id batch { status total items { status } } } } }',
  );
  expect(listed.data.payoutBatches.nodes[0]).toMatchObject({
    id: body.batch,
    batch: { status: 'authorized', total: '2' },
  });
}, 60_000);
