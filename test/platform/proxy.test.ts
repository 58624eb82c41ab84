import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/** With TRUST_PROXY the allowlist sees the address our proxy appended last to X-Forwarded-For. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { TRUST_PROXY: 'true' } });
});
afterAll(() => t?.close());

it('uses the last X-Forwarded-For entry as the client address', async () => {
  const m = await t.merchant();
  await t.app.services.merchants.setAllowlist(t.app.fork(), m.id, ['198.51.100.0/24']);
  const allowed = await t.signed(
    m,
    'POST',
    '/v1/cashier/status',
    { session: 'cs_x' },
    { 'x-forwarded-for': '10.0.0.1, 198.51.100.7' },
  );
  expect(allowed.status).toBe(404);
  // A client cannot smuggle an allowlisted address in front of the one the proxy appended.
  const spoofed = await t.signed(
    m,
    'POST',
    '/v1/cashier/status',
    { session: 'cs_x' },
    { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' },
  );
  expect(spoofed.status).toBe(403);
});
