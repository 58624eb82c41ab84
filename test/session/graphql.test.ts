import { afterAll, beforeAll, expect, it } from 'vitest';
import { type SessionFixture, sessionFixture } from './support.ts';

/** Operators reach the same operations on /graphql, naming the merchant, plus listings. */

let f: SessionFixture;
let token: string;
beforeAll(async () => {
  f = await sessionFixture({ players: 1 });
  token = await f.t.operatorToken();
});
afterAll(() => f?.close());

const INIT = `mutation ($m: ID, $input: CashierInitInput!) { cashierInit(merchantId: $m, input: $input) { session step status } }`;

it('runs init, step and status for a named merchant', async () => {
  const init = await f.t.graphql(token, INIT, {
    m: f.merchant.id,
    input: { network: 'eth', externalOrderId: 'op-1' },
  });
  expect(init.errors).toBeUndefined();
  const id = init.data.cashierInit.session;
  const step = await f.t.graphql(
    token,
    `mutation ($m: ID, $input: CashierStepInput!) { cashierStep(merchantId: $m, input: $input) { step status components { type options { value note disabled reason } } } }`,
    { m: f.merchant.id, input: { session: id, action: 'wallet_connected', value: f.players[0]!.address } },
  );
  expect(step.errors).toBeUndefined();
  expect(step.data.cashierStep.step).toBe('token_select');
  const status = await f.t.graphql(
    token,
    `query ($m: ID, $input: CashierStatusInput!) { cashierStatus(merchantId: $m, input: $input) { step } }`,
    { m: f.merchant.id, input: { session: id } },
  );
  expect(status.data.cashierStatus.step).toBe('token_select');
  // The REST merchant sees the same session.
  expect((await f.call('/v1/cashier/status', { session: id })).body.step).toBe('token_select');
});

it('requires the merchant id from operators and an operator token at all', async () => {
  const res = await f.t.graphql(token, INIT, { input: {} });
  expect(res.errors?.[0]?.extensions?.code).toBe('validation');
  const anonymous = await f.t.graphql('nope', INIT, { m: f.merchant.id, input: {} });
  expect(anonymous.errors?.[0]?.extensions?.code).toBe('unauthorized');
  const list = await f.t.graphql('nope', '{ sessions { nodes { id } } }');
  expect(list.errors?.[0]?.extensions?.code).toBe('unauthorized');
});

it('lists sessions newest first with filters and cursor pagination; reads one with its view', async () => {
  const other = await f.t.merchant('Other');
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await f.t.graphql(token, INIT, { m: other.id, input: { externalOrderId: `list-${i}` } });
    ids.push(res.data.cashierInit.session);
  }
  const page = `query ($after: String) { sessions(filter: { merchantId: "${other.id}", status: "pending" }, first: 2, after: $after) { nodes { id externalOrderId } hasNextPage endCursor } }`;
  const seen: string[] = [];
  let after: string | null = null;
  for (let i = 0; i < 5; i++) {
    const res = await f.t.graphql(token, page, { after });
    expect(res.errors).toBeUndefined();
    seen.push(...res.data.sessions.nodes.map((n: { id: string }) => n.id));
    if (!res.data.sessions.hasNextPage) break;
    after = res.data.sessions.endCursor;
  }
  expect(seen).toEqual([...ids].reverse());

  const byRef = await f.t.graphql(
    token,
    `{ sessions(filter: { externalOrderId: "list-3", network: null }) { nodes { id } } }`,
  );
  expect(byRef.data.sessions.nodes).toEqual([{ id: ids[3] }]);
  const none = await f.t.graphql(
    token,
    `{ sessions(filter: { merchantId: "${other.id}", network: "eth" }) { nodes { id } } }`,
  );
  expect(none.data.sessions.nodes).toEqual([]);
  const bad = await f.t.graphql(token, `{ sessions(filter: { status: "weird" }) { nodes { id } } }`);
  expect(bad.errors?.[0]?.extensions?.code).toBe('validation');

  const one = await f.t.graphql(
    token,
    `{ session(id: "${ids[0]}") { id merchantId orderRef step status view { step status components { type } } } }`,
  );
  expect(one.data.session).toMatchObject({
    id: ids[0],
    merchantId: other.id,
    step: 'network_select',
    status: 'pending',
  });
  expect(one.data.session.view.components[0].type).toBe('heading');
  const missing = await f.t.graphql(token, `{ session(id: "cs_missing") { id } }`);
  expect(missing.errors?.[0]?.extensions?.code).toBe('not_found');
});
