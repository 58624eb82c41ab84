import { afterAll, beforeAll, expect, it } from 'vitest';
import { stepResponse } from '../../src/modules/session/session.schemas.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** REST and GraphQL run the same resolver; merchants are isolated from each other. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('a signed REST read and the same operation on /graphql return the same data', async () => {
  const m = await t.merchant();
  const init = await t.signed(m, 'POST', '/v1/cashier/init', {
    external_order_id: 'parity-1',
    language: 'es',
  });
  expect(init.status).toBe(200);
  const created = (await init.json()) as { session: string };
  const rest = (await (
    await t.signed(m, 'POST', '/v1/cashier/status', { session: created.session })
  ).json()) as Record<string, unknown>;
  // The body is exactly what the OpenAPI document promises, with absent fields omitted, never null.
  expect(stepResponse.strict().safeParse(rest).error).toBeUndefined();
  expect(JSON.stringify(rest)).not.toContain('null');

  const token = await t.operatorToken();
  const gql = await t.graphql(
    token,
    `query($input: CashierStatusInput!, $merchantId: ID) {
      cashierStatus(input: $input, merchantId: $merchantId) { session step status components { type text } }
    }`,
    { input: { session: created.session }, merchantId: m.id },
  );
  expect(gql.errors).toBeUndefined();
  const g = gql.data.cashierStatus;
  expect(g.session).toBe(rest.session);
  expect(g.step).toBe(rest.step);
  expect(g.status).toBe(rest.status);
  expect(g.components.map((c: { text?: string }) => c.text ?? null)).toEqual(
    (rest.components as Array<{ text?: string }>).map((c) => c.text ?? null),
  );
});

it("a merchant never sees another merchant's session: 404, same as a missing one", async () => {
  const a = await t.merchant('A');
  const b = await t.merchant('B');
  const init = await t.signed(a, 'POST', '/v1/cashier/init', {});
  const { session } = (await init.json()) as { session: string };
  const other = await t.signed(b, 'POST', '/v1/cashier/status', { session });
  const missing = await t.signed(b, 'POST', '/v1/cashier/status', { session: 'cs_AAAAAAAAAAAAAAAAAAAAAA' });
  expect(other.status).toBe(404);
  expect(missing.status).toBe(404);
  expect(await other.json()).toEqual(await missing.json());
});

it('operators need a token on /graphql', async () => {
  const res = await t.graphql('not-a-token', '{ merchants { id } }');
  expect(res.errors?.[0]?.extensions?.code).toBe('unauthorized');
});
