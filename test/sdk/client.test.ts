import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGatewayClient, type GatewayClient, type GatewayErrorCode } from '../../sdk/client.ts';
import type { paths } from '../../sdk/openapi-types.ts';
import { webPages } from '../../src/http/pages.ts';
import { routes } from '../../src/modules/index.ts';
import { openApiDocument } from '../../src/rest/openapi.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * The SDK's typed client against the running service: every route of the OpenAPI document, called
 * through types generated from it. The app has one network without contracts, so payout and wallet
 * routes answer their documented errors; those are typed too.
 */

let t: TestApp;
let gateway: GatewayClient;
let key: { keyId: string; secret: string };
beforeAll(async () => {
  t = await startTestApp({ pages: webPages });
  key = await t.merchant();
  gateway = createGatewayClient({ baseUrl: t.http.url, ...key, retryDelayMs: 1 });
});
afterAll(() => t?.close());

const address = `0x${'11'.repeat(20)}`;
const signature = `0x${'1b'.repeat(65)}`;
const txHash = `0x${'ab'.repeat(32)}`;

const called = new Set<string>();
/** Records which operation a call exercised, for the coverage check at the end. */
function mark<P extends keyof paths>(method: 'GET' | 'POST', path: P) {
  called.add(`${method} ${path}`);
}

/** The error envelope's code, typed by the document's enum. */
const code = (error: { error: { code: GatewayErrorCode } } | undefined) => error?.error.code;

describe('every route through the generated client', () => {
  let session = '';
  let token = '';

  it('system and browser-facing routes', async () => {
    mark('GET', '/healthz');
    const health = await gateway.GET('/healthz');
    expect(health.data?.status).toBe('ok');

    mark('GET', '/readyz');
    const ready = await gateway.GET('/readyz');
    expect(ready.response.status).toBe(503); // the network's node does not answer here
    expect(code(ready.error)).toBe('unavailable');

    mark('GET', '/hpp/sdk.js');
    const script = await gateway.GET('/hpp/sdk.js', { parseAs: 'text' });
    expect(script.response.headers.get('content-type')).toMatch(/javascript/);
    expect(script.data).toContain('CryptoCashier');
  });

  it('self-hosted session: init, step, status', async () => {
    mark('POST', '/v1/cashier/init');
    const init = await gateway.POST('/v1/cashier/init', { body: { external_order_id: 'sdk-order-1' } });
    expect(init.error).toBeUndefined();
    session = init.data?.session ?? '';
    expect(session).toMatch(/^cs_/);
    expect(init.data?.step).toBe('network_select');

    mark('POST', '/v1/cashier/step');
    const step = await gateway.POST('/v1/cashier/step', {
      body: { session, action: 'submit_amount', value: '1' },
    });
    expect(step.response.status).toBe(400);
    expect(code(step.error)).toBe('invalid_action');

    mark('POST', '/v1/cashier/status');
    const status = await gateway.POST('/v1/cashier/status', { body: { session } });
    expect(status.data).toMatchObject({ session, step: 'network_select' });
  });

  it('hosted link: sessions, status, step, link and the page', async () => {
    mark('POST', '/v1/hpp/sessions');
    const link = await gateway.POST('/v1/hpp/sessions', { body: { external_order_id: 'sdk-hosted-1' } });
    expect(link.error).toBeUndefined();
    token = link.data?.token ?? '';
    expect(link.data?.url).toContain(`/p/${token}`);

    mark('POST', '/v1/hpp/status');
    const status = await gateway.POST('/v1/hpp/status', { body: { token } });
    expect(status.data?.step).toBe('network_select');

    mark('POST', '/v1/hpp/step');
    const step = await gateway.POST('/v1/hpp/step', { body: { token, action: 'submit_amount', value: '1' } });
    expect(code(step.error)).toBe('invalid_action');

    mark('POST', '/v1/hpp/link');
    const info = await gateway.POST('/v1/hpp/link', { body: { token } });
    expect(info.data?.session).toBe(link.data?.session);

    mark('GET', '/p/{token}');
    const page = await gateway.GET('/p/{token}', { params: { path: { token } }, parseAs: 'text' });
    expect(page.response.status).toBe(200);
    expect(page.response.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.data).toMatch(/<html/i);
  });

  it('payouts, approvals and batches answer their documented errors', async () => {
    mark('POST', '/v1/payouts');
    const payout = await gateway.POST('/v1/payouts', {
      body: { network: 'eth', token: 'USDT', amount: '1', recipient: address },
    });
    expect(code(payout.error)).toBe('unsupported');

    mark('POST', '/v1/payouts/authorize');
    const authorize = await gateway.POST('/v1/payouts/authorize', {
      body: { payout: 'po_missing', signature },
    });
    expect(authorize.response.status).toBe(404);

    mark('POST', '/v1/payouts/status');
    const status = await gateway.POST('/v1/payouts/status', { body: { payout: 'po_missing' } });
    expect(code(status.error)).toBe('not_found');

    mark('POST', '/v1/payouts/approval');
    const approval = await gateway.POST('/v1/payouts/approval', {
      body: { network: 'eth', token: 'USDT', amount: '1' },
    });
    expect(code(approval.error)).toBe('unsupported');

    mark('POST', '/v1/payouts/approval/broadcast');
    const broadcast = await gateway.POST('/v1/payouts/approval/broadcast', {
      body: { network: 'eth', token: 'USDT', amount: '1', signed_transaction: '0x02' },
    });
    expect(code(broadcast.error)).toBe('unsupported');

    mark('POST', '/v1/payouts/approval/status');
    const approvalStatus = await gateway.POST('/v1/payouts/approval/status', {
      body: { network: 'eth', token: 'USDT', tx_hash: txHash },
    });
    expect(code(approvalStatus.error)).toBe('unsupported');

    mark('POST', '/v1/payouts/batch');
    const batch = await gateway.POST('/v1/payouts/batch', {
      body: { network: 'eth', token: 'USDT', items: [{ recipient: address, amount: '1' }] },
    });
    expect(code(batch.error)).toBe('unsupported');

    mark('POST', '/v1/payouts/batch/authorize');
    const batchAuthorize = await gateway.POST('/v1/payouts/batch/authorize', {
      body: { batch: 'pb_missing', signature },
    });
    expect(code(batchAuthorize.error)).toBe('not_found');

    mark('POST', '/v1/payouts/batch/status');
    const batchStatus = await gateway.POST('/v1/payouts/batch/status', { body: { batch: 'pb_missing' } });
    expect(code(batchStatus.error)).toBe('not_found');
  });

  it('balance and the standing deposit address', async () => {
    mark('GET', '/v1/balance');
    const balance = await gateway.GET('/v1/balance');
    expect(code(balance.error)).toBe('unsupported'); // no settlement wallet yet

    mark('POST', '/v1/wallet/address');
    const wallet = await gateway.POST('/v1/wallet/address', { body: { player_id: 'p-1', network: 'nope' } });
    expect(wallet.response.status).toBe(400);
    expect(code(wallet.error)).toBe('unsupported');
  });

  it('covered every operation of the document', () => {
    const all = Object.entries(openApiDocument(routes).paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect([...called].sort()).toEqual(all.sort());
  });
});

describe('signing and retries', () => {
  it('a wrong secret is refused: the signature is really checked', async () => {
    const wrong = createGatewayClient({ baseUrl: t.http.url, keyId: key.keyId, secret: 'sk_wrong' });
    const res = await wrong.GET('/v1/balance');
    expect(res.response.status).toBe(401);
    expect(code(res.error)).toBe('unauthorized');
  });

  it('a 503 is retried as a new request: fresh nonce, the service accepts it', async () => {
    const nonces: string[] = [];
    const flaky = createGatewayClient({
      baseUrl: t.http.url,
      ...key,
      retryDelayMs: 1,
      // The first attempt reaches the service (spending its nonce), then a proxy answers 503.
      fetch: async (request) => {
        nonces.push(request.headers.get('x-nonce') ?? '');
        const real = await fetch(request);
        return nonces.length === 1
          ? new Response('{"error":{"code":"unavailable","message":"x"}}', { status: 503 })
          : real;
      },
    });
    const res = await flaky.POST('/v1/cashier/init', { body: { external_order_id: 'sdk-retry-1' } });
    expect(res.response.status).toBe(200);
    expect(nonces).toHaveLength(2);
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it('gives up after the configured retries and returns the 503', async () => {
    let attempts = 0;
    const down = createGatewayClient({
      baseUrl: t.http.url,
      ...key,
      retries: 2,
      retryDelayMs: 1,
      fetch: async () => {
        attempts++;
        return Response.json({ error: { code: 'unavailable', message: 'down' } }, { status: 503 });
      },
    });
    const res = await down.GET('/v1/balance');
    expect(attempts).toBe(3);
    expect(code(res.error)).toBe('unavailable');
  });

  it('types refuse what the document refuses (checked by npm run typecheck)', async () => {
    const res = await gateway.POST('/v1/payouts/batch', {
      // @ts-expect-error items is an array in the document
      body: { network: 'eth', token: 'USDT', items: { recipient: address, amount: '1' } },
    });
    expect(code(res.error)).toBe('validation');
    // @ts-expect-error no such route
    await expect(gateway.POST('/v1/nope', {})).resolves.toBeDefined();
  });
});
