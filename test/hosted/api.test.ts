import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createOrm } from '../../src/db/orm.ts';
import { entities } from '../../src/modules/index.ts';
import { Session } from '../../src/modules/session/session.entity.ts';
import { entitySnapshot } from '../../src/modules/session/session.service.ts';
import { sessionChanged, transitionSessions } from '../../src/modules/session/session.transition.ts';
import { type SessionFixture, sessionFixture } from '../session/support.ts';

let f: SessionFixture;
beforeAll(async () => {
  f = await sessionFixture({ players: 0 });
});
afterAll(() => f?.close());

/** An unsigned call, as the page makes it. */
async function page(path: string, body: unknown) {
  const res = await fetch(`${f.t.http.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests walk arbitrary response shapes
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function create(body: Record<string, unknown> = {}) {
  const res = await f.call('/v1/hpp/sessions', body);
  expect(res.status).toBe(200);
  return res.body as unknown as { session: string; token: string; url: string; expires_at: string };
}

async function until(check: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('POST /v1/hpp/sessions', () => {
  it('returns session, token, url (/p/{token}) and expires_at', async () => {
    const link = await create({
      network: 'eth',
      token: 'USDC',
      amount: '3',
      return_url: 'https://shop.example/r',
    });
    expect(link.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(link.url).toBe(`http://localhost:${new URL(f.t.http.url).port}/p/${link.token}`);
    expect(Date.parse(link.expires_at)).toBeGreaterThan(Date.now());
    const status = await page('/v1/hpp/status', { token: link.token });
    expect(status).toMatchObject({ status: 200, body: { session: link.session, step: 'connect_wallet' } });
  });

  it.each([
    [{ token: 'USDC' }, 400, 'validation'],
    [{ network: 'nope' }, 400, 'unsupported'],
    [{ amount: '0' }, 400, 'validation'],
    [{ return_url: 'ftp://x' }, 400, 'validation'],
    [{ return_url: 'not a url' }, 400, 'validation'],
  ])('%o is %i %s', async (body, status, code) => {
    const res = await f.call('/v1/hpp/sessions', body);
    expect(res.status).toBe(status);
    expect((res.body as unknown as { error: { code: string } }).error.code).toBe(code);
  });

  it('is signed: unsigned is 401', async () => {
    const res = await page('/v1/hpp/sessions', {});
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('a repeat issues a fresh token (the earlier one 404); other parameters 409', async () => {
    const ref = { external_order_id: `r-${Date.now()}`, amount: '2' };
    const a = await create(ref);
    const b = await create({ ...ref, language: 'es', return_url: 'https://shop.example/x' });
    expect(b.session).toBe(a.session);
    expect((await page('/v1/hpp/status', { token: a.token })).status).toBe(404);
    expect((await page('/v1/hpp/status', { token: b.token })).status).toBe(200);
    const conflict = await f.call('/v1/hpp/sessions', { ...ref, amount: '3' });
    expect(conflict.status).toBe(409);
    expect((conflict.body as unknown as { error: { code: string } }).error.code).toBe('conflict');
  });
});

describe('POST /v1/hpp/step and /v1/hpp/status', () => {
  it('run the step machine on the token’s session', async () => {
    const link = await create();
    const res = await page('/v1/hpp/step', { token: link.token, action: 'select_network', value: 'eth' });
    expect(res).toMatchObject({ status: 200, body: { session: link.session, step: 'connect_wallet' } });
    const bad = await page('/v1/hpp/step', { token: link.token, action: 'submit_amount', value: '1' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_action');
  });

  it.each([
    ['/v1/hpp/status', {}],
    ['/v1/hpp/status', { token: '' }],
    ['/v1/hpp/step', { action: 'select_network', value: 'eth' }],
  ])('%s without a token is 400 validation', async (path, body) => {
    const res = await page(path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation');
  });

  it('an unknown token is 404, an expired link 410 (both routes), in the error envelope', async () => {
    const unknown = await page('/v1/hpp/status', { token: 'x'.repeat(43) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const link = await create();
    await f.t.app
      .fork()
      .execute(`update sessions set hosted_expires_at = now() - interval '1 second' where id = ?`, [
        link.session,
      ]);
    for (const [path, body] of [
      ['/v1/hpp/status', { token: link.token }],
      ['/v1/hpp/step', { token: link.token, action: 'select_network', value: 'eth' }],
    ] as const) {
      const res = await page(path, body);
      expect(res.status).toBe(410);
      expect(res.body.error.code).toBe('expired');
    }
  });

  it('a token reads only its own session: the session field of the body is ignored', async () => {
    const a = await create();
    const b = await create();
    const res = await page('/v1/hpp/status', { token: a.token, session: b.session });
    // Unknown fields are refused or ignored; never is b's session answered.
    if (res.status === 200) expect(res.body.session).toBe(a.session);
    else expect(res.body.error.code).toBe('validation');
  });
});

describe('POST /v1/hpp/link', () => {
  it('answers what the page shows around the steps, under the token rules of status', async () => {
    const link = await create({
      network: 'eth',
      token: 'USDC',
      amount: '3',
      language: 'ru',
      return_url: 'https://shop.example/r?x=1',
      external_order_id: 'order-5501',
    });
    const merchantName = (
      await f.t.app
        .fork()
        .execute<{ name: string }[]>('select name from merchants where id = ?', [f.merchant.id])
    )[0]!.name;
    const res = await page('/v1/hpp/link', { token: link.token });
    expect(res).toEqual({
      status: 200,
      body: {
        session: link.session,
        language: 'ru',
        network: 'eth',
        token: 'USDC',
        amount: '3',
        expires_at: link.expires_at,
        paid: false,
        return_url: 'https://shop.example/r?x=1',
        merchant_name: merchantName,
        order_reference: 'order-5501',
      },
    });
    // An operator sets the name players see.
    await f.t.app.services.merchants.update(f.t.app.fork(), f.merchant.id, { displayName: 'Shop Display' });
    expect((await page('/v1/hpp/link', { token: link.token })).body.merchant_name).toBe('Shop Display');
    await f.t.app.services.merchants.update(f.t.app.fork(), f.merchant.id, { displayName: null });
    const bare = await create({ language: 'de' });
    // What is not known yet is left out, as REST leaves out every null field.
    expect((await page('/v1/hpp/link', { token: bare.token })).body).toEqual({
      session: bare.session,
      language: 'en',
      expires_at: bare.expires_at,
      paid: false,
      merchant_name: merchantName,
    });
    expect((await page('/v1/hpp/link', {})).body.error.code).toBe('validation');
    expect((await page('/v1/hpp/link', { token: 'z'.repeat(43) })).status).toBe(404);
    await f.t.app
      .fork()
      .execute(`update sessions set hosted_expires_at = now() - interval '1 second' where id = ?`, [
        link.session,
      ]);
    expect((await page('/v1/hpp/link', { token: link.token })).body.error.code).toBe('expired');
  });
});

describe('hostedStepChanged subscription', () => {
  it('pushes a fresh StepResponse of the token’s session only; a bad token is refused', async () => {
    const a = await create();
    const b = await create();
    const client = createClient({
      url: `${f.t.http.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
    });
    const seen: { session: string; step: string }[] = [];
    const errors: unknown[] = [];
    const query = 'subscription ($t: String!) { hostedStepChanged(token: $t) { session step status } }';
    try {
      const stop = client.subscribe<{ hostedStepChanged: { session: string; step: string } }>(
        { query, variables: { t: a.token } },
        {
          next: (v) => seen.push(v.data!.hostedStepChanged),
          error: (e) => errors.push(e),
          complete: () => {},
        },
      );
      await until(() => f.t.app.pubsub.subscribers(sessionChanged) >= 1 && f.t.app.pubsub.listening);
      await page('/v1/hpp/step', { token: b.token, action: 'select_network', value: 'eth' });
      await page('/v1/hpp/step', { token: a.token, action: 'select_network', value: 'eth' });
      await until(() => seen.length >= 1);
      await new Promise((r) => setTimeout(r, 200));
      expect(errors).toEqual([]);
      expect(seen).toEqual([{ session: a.session, step: 'connect_wallet', status: 'pending' }]);
      stop();

      const refused = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query, variables: { t: 'y'.repeat(43) } },
          { next: (v) => resolve(v), error: (e) => resolve(e), complete: () => resolve('complete') },
        );
      });
      // graphql-ws answers a refused subscribe with one result carrying the error, then completes.
      expect(JSON.stringify(refused)).toContain('not_found');
      expect(JSON.stringify(refused)).not.toContain('hostedStepChanged":{');
    } finally {
      await client.dispose();
    }
  });
});

describe('sessionStepChanged subscription (operators)', () => {
  it('streams any session’s StepResponse to an operator and refuses anyone else', async () => {
    const a = await create();
    const operator = await f.t.operatorToken();
    const url = `${f.t.http.url.replace('http', 'ws')}/graphql`;
    const client = createClient({
      url,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${operator}` },
    });
    const anonymous = createClient({ url, webSocketImpl: WebSocket });
    const query = 'subscription ($id: ID!) { sessionStepChanged(id: $id) { session step } }';
    const seen: unknown[] = [];
    try {
      const before = f.t.app.pubsub.subscribers(sessionChanged);
      client.subscribe<{ sessionStepChanged: unknown }>(
        { query, variables: { id: a.session } },
        {
          next: (v) => seen.push(v.data?.sessionStepChanged ?? v),
          error: (e) => seen.push(e),
          complete: () => {},
        },
      );
      await until(() => f.t.app.pubsub.subscribers(sessionChanged) > before);
      await page('/v1/hpp/step', { token: a.token, action: 'select_network', value: 'eth' });
      await until(() => seen.length >= 1);
      expect(seen).toEqual([{ session: a.session, step: 'connect_wallet' }]);
      const refused = await new Promise<unknown>((resolve) => {
        anonymous.subscribe(
          { query, variables: { id: a.session } },
          { next: (v) => resolve(v), error: (e) => resolve(e), complete: () => resolve('complete') },
        );
      });
      expect(JSON.stringify(refused)).toMatch(/unauthorized|forbidden/);
    } finally {
      await client.dispose();
      await anonymous.dispose();
    }
  });
});

describe('push from another process', () => {
  it('a settlement committed through another connection pool (as a separate worker) pushes the terminal step', async () => {
    const a = await create();
    const client = createClient({
      url: `${f.t.http.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
    });
    // Its own ORM and connections: the change reaches the API only through Postgres NOTIFY.
    const worker = await createOrm(f.t.config.databaseUrl!, { entities });
    const seen: { step: string; status: string }[] = [];
    try {
      const before = f.t.app.pubsub.subscribers(sessionChanged);
      client.subscribe<{ hostedStepChanged: { step: string; status: string } }>(
        {
          query: 'subscription ($t: String!) { hostedStepChanged(token: $t) { step status } }',
          variables: { t: a.token },
        },
        {
          next: (v) => seen.push(v.data!.hostedStepChanged),
          error: (e) => seen.push(e as never),
          complete: () => {},
        },
      );
      await until(() => f.t.app.pubsub.subscribers(sessionChanged) > before);
      const em = worker.em.fork();
      const session = await em.findOneOrFail(Session, { id: a.session });
      const started = Date.now();
      await em.transactional((tx) =>
        transitionSessions(
          tx,
          [
            {
              kind: 'failed',
              session: entitySnapshot(session),
              set: { status: 'failed', step: 'failed', failureReason: 'expired', settledAt: new Date() },
            },
          ],
          'raise',
        ),
      );
      await until(() => seen.length >= 1);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(seen).toEqual([{ step: 'failed', status: 'failed' }]);
    } finally {
      await client.dispose();
      await worker.close(true);
    }
  });
});

describe('a replaced token on an open subscription', () => {
  it('stops yielding the session: the push after a repeated create carries not_found', async () => {
    const ref = { external_order_id: `sub-${Date.now()}` };
    const a = await create(ref);
    const client = createClient({
      url: `${f.t.http.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
    });
    const seen: string[] = [];
    try {
      const before = f.t.app.pubsub.subscribers(sessionChanged);
      client.subscribe(
        {
          query: 'subscription ($t: String!) { hostedStepChanged(token: $t) { session step } }',
          variables: { t: a.token },
        },
        {
          next: (v) => seen.push(JSON.stringify(v)),
          error: (e) => seen.push(JSON.stringify(e)),
          complete: () => {},
        },
      );
      await until(() => f.t.app.pubsub.subscribers(sessionChanged) > before);
      await create(ref);
      await until(() => seen.length >= 1);
      expect(seen[0]).toContain('not_found');
      expect(seen[0]).not.toContain(a.session);
    } finally {
      await client.dispose();
    }
  });
});
