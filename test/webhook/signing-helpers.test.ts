import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signedFetch } from '../../sdk/signed-fetch.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** The shipped request-signing helpers (sdk/) are accepted by the service, as the README shows them. */

const root = path.resolve(import.meta.dirname, '../..');
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('sdk/signed-fetch.ts: a signed POST is accepted (404 for a session that does not exist, not 401)', async () => {
  const key = await t.merchant();
  const res = await signedFetch(t.http.url, key.keyId, key.secret, 'POST', '/v1/cashier/status', {
    session: 'cs_none',
  });
  expect(res.status).toBe(404);
  const wrong = await signedFetch(t.http.url, key.keyId, 'sk_wrong', 'POST', '/v1/cashier/status', {
    session: 'x',
  });
  expect(wrong.status).toBe(401);
});

it('sdk/signed-curl.sh: the same with curl and openssl', async () => {
  const key = await t.merchant();
  const { stdout } = await promisify(execFile)(
    path.join(root, 'sdk/signed-curl.sh'),
    [key.keyId, key.secret, 'POST', `${t.http.url}/v1/cashier/init`, '{"external_order_id":"curl-1"}'],
    { cwd: root },
  );
  expect(JSON.parse(stdout)).toMatchObject({ step: 'network_select', status: 'pending' });
});
