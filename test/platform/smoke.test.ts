import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('serves health, readiness and graphql', async () => {
  expect((await fetch(`${t.http.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${t.http.url}/readyz`)).status).toBe(200);
  const token = await t.operatorToken();
  const res = await t.graphql(token, 'mutation { createMerchant(name: "A") { id name webhooksEnabled } }');
  expect(res.errors).toBeUndefined();
  expect(res.data.createMerchant.id).toMatch(/^mer_/);
});
