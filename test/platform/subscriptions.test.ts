import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

it('serves GraphQL subscriptions over WebSocket on /graphql', async () => {
  const client = createClient({
    url: `${t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    lazy: true,
  });
  try {
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const stop = client.subscribe<{ heartbeat: string }>(
        { query: 'subscription { heartbeat(intervalSeconds: 1) }' },
        {
          next: (value) => {
            seen.push(value.data!.heartbeat);
            if (seen.length === 2) {
              stop();
              resolve();
            }
          },
          error: reject,
          complete: () => {},
        },
      );
    });
    expect(seen).toHaveLength(2);
    expect(Date.parse(seen[1]!)).toBeGreaterThan(Date.parse(seen[0]!));
  } finally {
    await client.dispose();
  }
});

it('serves GraphiQL to browsers', async () => {
  const res = await fetch(`${t.http.url}/graphql`, { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  expect(await res.text()).toMatch(/graphiql/i);
});

it('refuses a subscription carrying a NUL character with a validation error', async () => {
  const client = createClient({
    url: `${t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${await t.operatorToken()}` },
    lazy: true,
  });
  try {
    const errors = await new Promise<unknown>((resolve) => {
      client.subscribe(
        {
          query: 'subscription ($m: ID) { webhookDeliveryUpdated(merchantId: $m) { id } }',
          variables: { m: 'mer_\u0000' },
        },
        { next: () => {}, error: resolve, complete: () => resolve(undefined) },
      );
    });
    expect(errors).toEqual([expect.objectContaining({ extensions: { code: 'validation' } })]);
    expect((errors as Array<{ message: string }>)[0]!.message).toMatch(/variables\.m: .*NUL/);
  } finally {
    await client.dispose();
  }
});
