import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('serves health, readiness and graphql', async () => {
  expect((await fetch(`${t.http.url}/healthz`)).status).toBe(200);
  // Not ready: its only network's node (a closed port) does not answer.
  expect((await fetch(`${t.http.url}/readyz`)).status).toBe(503);
  const token = await t.operatorToken();
  const res = await t.graphql(token, 'mutation { createMerchant(name: "A") { id name webhooksEnabled } }');
  expect(res.errors).toBeUndefined();
  expect(res.data.createMerchant.id).toMatch(/^mer_/);
});

it('refuses a private default webhook URL outside development (D9)', async () => {
  const token = await t.operatorToken();
  for (const url of ['http://127.0.0.1/hook', 'http://10.0.0.8/hook', 'http://169.254.169.254/latest']) {
    const res = await t.graphql(
      token,
      'mutation($u: String) { createMerchant(name: "B", webhookUrl: $u) { id } }',
      { u: url },
    );
    expect(res.errors?.[0]?.extensions?.code, url).toBe('validation');
  }
  const ok = await t.graphql(
    token,
    'mutation { createMerchant(name: "C", webhookUrl: "https://93.184.215.14/hook") { id } }',
  );
  expect(ok.errors).toBeUndefined();
});

it('the rule lives in the merchant service: a caller without GraphQL (the CLI, a script) is refused too', async () => {
  const merchants = t.app.services.merchants;
  const em = t.app.fork();
  await expect(
    merchants.create(em, { name: 'D', webhookUrl: 'http://127.0.0.1/hook' }),
  ).rejects.toMatchObject({
    code: 'validation',
    message: expect.stringMatching(/^webhook_url: 127\.0\.0\.1 resolves to a loopback address/),
  });
  const m = await merchants.create(em, { name: 'E' });
  await expect(merchants.update(em, m.id, { webhookUrl: 'http://10.0.0.8/hook' })).rejects.toMatchObject({
    code: 'validation',
  });
  expect((await merchants.get(t.app.fork(), m.id)).webhookUrl).toBeNull();
  await merchants.update(em, m.id, { webhookUrl: 'https://93.184.215.14/hook' });
  expect((await merchants.get(t.app.fork(), m.id)).webhookUrl).toBe('https://93.184.215.14/hook');
});
