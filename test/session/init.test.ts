import { keccak256, toUtf8Bytes } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SessionFixture, sessionFixture } from './support.ts';

let f: SessionFixture;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
});
afterAll(() => f?.close());

describe('POST /v1/cashier/init', () => {
  it('starts at network_select with nothing prefilled, offering the networks with a router', async () => {
    const { status, body } = await f.call('/v1/cashier/init', {});
    expect(status).toBe(200);
    expect(body.session).toMatch(/^cs_[A-Za-z0-9_-]{22}$/);
    expect(body).toMatchObject({ step: 'network_select', status: 'pending' });
    const group = body.components.find((c) => c.type === 'button_group');
    expect(group?.options).toEqual([{ label: 'ETH', action: 'select_network', value: 'eth' }]);
  });

  it.each([
    [{ network: 'eth' }, 'connect_wallet'],
    [{ network: 'eth', token: 'USDC' }, 'connect_wallet'],
    [{ network: 'eth', token: 'USDC', amount: '12.50' }, 'connect_wallet'],
  ])('prefill %o starts at %s', async (prefill, step) => {
    const { status, body } = await f.call('/v1/cashier/init', prefill);
    expect(status).toBe(200);
    expect(body.step).toBe(step);
    expect(body.submit_action).toBe('wallet_connected');
    expect(body.wallet_action).toMatchObject({ method: 'eth_requestAccounts', chain_id: '0x7a69' });
  });

  it('stores order_ref = keccak256(session id) and the canonical amount', async () => {
    const { body } = await f.call('/v1/cashier/init', { network: 'eth', token: 'USDC', amount: '12.50' });
    const token = await f.t.operatorToken();
    const res = await f.t.graphql(
      token,
      `{ session(id: "${body.session}") { orderRef amount prefillAmount status step } }`,
    );
    expect(res.data.session).toEqual({
      orderRef: keccak256(toUtf8Bytes(body.session)),
      amount: '12.5',
      prefillAmount: '12.5',
      status: 'pending',
      step: 'connect_wallet',
    });
  });

  it.each([
    [{ token: 'USDC' }, 400, 'validation'],
    [{ network: 'nope' }, 400, 'unsupported'],
    [{ network: 'tron' }, 400, 'unsupported'],
    [{ network: 'eth', token: 'XYZ' }, 400, 'unsupported'],
    [{ amount: '0' }, 400, 'validation'],
    [{ amount: '-1' }, 400, 'validation'],
    [{ amount: '1e5' }, 400, 'validation'],
    [{ network: 'eth', token: 'USDC', amount: '1.0000001' }, 400, 'validation'],
    [{ callback_url: 'ftp://x' }, 400, 'validation'],
    [{ player_id: 'has space' }, 400, 'validation'],
    [{ external_order_id: 'x'.repeat(129) }, 400, 'validation'],
    [{ amount: 5 }, 400, 'validation'],
    [{ unknown_field: 1 }, 400, 'validation'],
  ])('refuses %o with %i %s', async (body, status, code) => {
    const res = await f.call('/v1/cashier/init', body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe('string');
  });

  it('accepts any language and falls back to English; region ignored', async () => {
    const ru = await f.call('/v1/cashier/init', { language: 'ru-RU' });
    expect(ru.body.components[0]?.text).toBe('Выберите сеть');
    const es = await f.call('/v1/cashier/init', { language: 'es' });
    expect(es.body.components[0]?.text).toBe('Elige una red');
    const en = await f.call('/v1/cashier/init', { language: 'en-GB' });
    expect(en.body.components[0]?.text).toBe('Choose a network');
    const xx = await f.call('/v1/cashier/init', { language: 'klingon' });
    expect(xx.status).toBe(200);
    expect(xx.body.components[0]?.text).toBe('Choose a network');
  });
});

describe('POST /v1/cashier/status', () => {
  it('returns the current step of the merchant’s own session', async () => {
    const init = await f.call('/v1/cashier/init', { network: 'eth' });
    const { status, body } = await f.call('/v1/cashier/status', { session: init.body.session });
    expect(status).toBe(200);
    expect(body).toEqual(init.body);
  });

  it('is 404 for another merchant’s session and for a missing one', async () => {
    const init = await f.call('/v1/cashier/init', {});
    const other = await f.t.merchant('Other');
    const res = await f.t.signed(other, 'POST', '/v1/cashier/status', { session: init.body.session });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
    const missing = await f.call('/v1/cashier/status', { session: 'cs_missing' });
    expect(missing.status).toBe(404);
  });

  it('answers many polls at once, of several merchants, each with its own session or 404', async () => {
    // Polls arriving together share one SELECT: a session is still only its merchant's to read.
    const mine = await Promise.all([{}, { network: 'eth' }, {}].map((b) => f.call('/v1/cashier/init', b)));
    const other = await f.t.merchant('Poller');
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => {
        const init = mine[i % mine.length]!.body;
        if (i % 4 === 1)
          return f.t
            .signed(other, 'POST', '/v1/cashier/status', { session: init.session })
            .then(async (res) => ({ i, status: res.status, body: await res.json() }));
        const session = i % 4 === 3 ? 'cs_missing_too' : init.session;
        return f.call('/v1/cashier/status', { session }).then((res) => ({ i, ...res }));
      }),
    );
    for (const { i, status, body } of answers) {
      if (i % 4 === 1 || i % 4 === 3) {
        expect({ i, status, code: body.error?.code }).toEqual({ i, status: 404, code: 'not_found' });
      } else {
        expect({ i, status }).toEqual({ i, status: 200 });
        expect(body).toEqual(mine[i % mine.length]!.body);
      }
    }
  });

  it('is 400 validation without a session', async () => {
    const res = await f.call('/v1/cashier/status', {});
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation');
  });
});

describe('external_order_id idempotency', () => {
  it('returns the same session for the same parameters and 409 for different ones', async () => {
    const body = {
      external_order_id: 'order-1',
      player_id: 'p1',
      network: 'eth',
      token: 'USDC',
      amount: '10',
    };
    const a = await f.call('/v1/cashier/init', body);
    const b = await f.call('/v1/cashier/init', { ...body, amount: '10.00' });
    expect(b.status).toBe(200);
    expect(b.body.session).toBe(a.body.session);
    const c = await f.call('/v1/cashier/init', { ...body, amount: '11' });
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('conflict');
    const d = await f.call('/v1/cashier/init', { ...body, player_id: 'p2' });
    expect(d.status).toBe(409);
  });

  it('the same reference of another merchant is a different session', async () => {
    const a = await f.call('/v1/cashier/init', { external_order_id: 'shared-ref' });
    const other = await f.t.merchant('Other 2');
    const res = await f.t.signed(other, 'POST', '/v1/cashier/init', { external_order_id: 'shared-ref' });
    expect(res.status).toBe(200);
    expect((await res.json()).session).not.toBe(a.body.session);
  });

  it('20 concurrent identical inits create one session; concurrent different ones get 409', async () => {
    const body = { external_order_id: 'concurrent-1', player_id: 'p', network: 'eth', amount: '5' };
    const results = await Promise.all(Array.from({ length: 20 }, () => f.call('/v1/cashier/init', body)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.body.session)).size).toBe(1);

    const mixed = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        f.call('/v1/cashier/init', { external_order_id: 'concurrent-2', amount: i % 2 ? '1' : '2' }),
      ),
    );
    const ok = mixed.filter((r) => r.status === 200);
    const conflicts = mixed.filter((r) => r.status === 409);
    expect(ok.length + conflicts.length).toBe(20);
    expect(new Set(ok.map((r) => r.body.session)).size).toBe(1);
    expect(conflicts.length).toBeGreaterThanOrEqual(10);
    const token = await f.t.operatorToken();
    const list = await f.t.graphql(
      token,
      `{ sessions(filter: { externalOrderId: "concurrent-2" }) { nodes { id } } }`,
    );
    expect(list.data.sessions.nodes).toHaveLength(1);
  });
});
