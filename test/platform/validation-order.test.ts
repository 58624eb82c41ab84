import { afterAll, beforeAll, expect, it } from 'vitest';
import { routes } from '../../src/modules/index.ts';
import { openApiDocument } from '../../src/rest/openapi.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Shape first, then state: a body of the wrong shape is 400 `validation` on every route, even when a
 * well-shaped body would fail on state (an unknown network, session, payout or batch, an allowance).
 */

let t: TestApp;
let key: { keyId: string; secret: string };
beforeAll(async () => {
  t = await startTestApp();
  key = await t.merchant();
});
afterAll(() => t?.close());

const address = `0x${'11'.repeat(20)}`;
const txHash = `0x${'ab'.repeat(32)}`;
const signature = `0x${'1b'.repeat(65)}`;

/** Per route, a well-shaped body that is refused on state. */
const REFUSED_ON_STATE: Record<string, Record<string, unknown>> = {
  '/v1/cashier/init': { network: 'nope' },
  '/v1/cashier/step': { session: 'cs_missing', action: 'poll' },
  '/v1/cashier/status': { session: 'cs_missing' },
  '/v1/hpp/sessions': { network: 'nope' },
  '/v1/hpp/step': { token: 'no-such-token', action: 'poll' },
  '/v1/hpp/status': { token: 'no-such-token' },
  '/v1/hpp/link': { token: 'no-such-token' },
  '/v1/payouts': { network: 'nope', token: 'USDT', amount: '1', recipient: address },
  '/v1/payouts/authorize': { payout: 'po_missing', signature },
  '/v1/payouts/status': { payout: 'po_missing' },
  '/v1/payouts/approval': { network: 'nope', token: 'USDT', amount: '1' },
  '/v1/payouts/approval/broadcast': {
    network: 'nope',
    token: 'USDT',
    amount: '1',
    signed_transaction: txHash,
  },
  '/v1/payouts/approval/status': { network: 'nope', token: 'USDT', tx_hash: txHash },
  '/v1/payouts/batch': { network: 'eth', token: 'USDT', items: [{ recipient: address, amount: '1' }] },
  '/v1/payouts/batch/authorize': { batch: 'pb_missing', signature },
  '/v1/payouts/batch/status': { batch: 'pb_missing' },
  '/v1/wallet/address': { player_id: 'p', network: 'nope' },
};

interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
}
const accepts = (schema: JsonSchema, type: string): boolean =>
  schema.type === type || [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some((s) => accepts(s, type));

const doc = openApiDocument(routes);
const posts = Object.entries(doc.paths).flatMap(([path, methods]) => {
  const post = (
    methods as Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>
  ).post;
  const schema = post?.requestBody?.content['application/json']?.schema;
  return schema ? [{ path, schema }] : [];
});

it('every POST route with a body has a state-refused example here', () => {
  expect(posts.map((p) => p.path).sort()).toEqual(Object.keys(REFUSED_ON_STATE).sort());
});

async function call(path: string, body: unknown) {
  const res = await (path.startsWith('/v1/hpp/') && path !== '/v1/hpp/sessions'
    ? fetch(`${t.http.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    : t.signed(key, 'POST', path, body));
  const json = (await res.json()) as { error?: { code: string; message: string } };
  return { status: res.status, code: json.error?.code, message: json.error?.message ?? '' };
}

it.each(posts)(
  '$path: each field of the wrong shape is 400 validation before any state check',
  async ({ path, schema }) => {
    const base = REFUSED_ON_STATE[path] ?? {};
    const refused = await call(path, base);
    expect(refused.status, JSON.stringify(refused)).toBeGreaterThanOrEqual(400);
    expect(refused.code, JSON.stringify(refused)).not.toBe('validation');
    for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
      if (accepts(fieldSchema, 'object')) continue; // an object is a right shape there
      const answer = await call(path, { ...base, [field]: { wrong: 'shape' } });
      expect(answer, `${path} ${field}`).toMatchObject({ status: 400, code: 'validation' });
      expect(answer.message).toContain(field);
    }
  },
);

it('batch items that are an object, not an array: 400 validation naming items', async () => {
  const answer = await call('/v1/payouts/batch', {
    network: 'eth',
    token: 'USDT',
    items: { recipient: address, amount: '1' },
  });
  expect(answer).toMatchObject({ status: 400, code: 'validation', message: 'items: must be an array' });
});

it('duplicate item external_ids in a batch: 400 validation before the router or wallet lookup', async () => {
  const item = { external_id: 'dup-1', recipient: address, amount: '1' };
  const answer = await call('/v1/payouts/batch', { network: 'eth', token: 'USDT', items: [item, item] });
  expect(answer).toMatchObject({
    status: 400,
    code: 'validation',
    message: 'items[1].external_id: "dup-1" appears twice in the batch',
  });
});
