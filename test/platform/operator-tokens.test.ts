import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../support/app.ts';
import { cliFor } from '../support/cli.ts';

/** Operator tokens have a life cycle: scopes, expiry, revocation (GraphQL and CLI), live sockets. */

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.operatorToken(['admin']);
});
afterAll(() => t?.close());

/** Polls `check` every 20 ms until it holds or `ms` pass; the last value for the assertion. */
async function until<T>(check: () => Promise<T> | T, ms = 5_000): Promise<T> {
  const start = Date.now();
  let value = await check();
  while (!value && Date.now() - start < ms) {
    await new Promise((r) => setTimeout(r, 20));
    value = await check();
  }
  return value;
}

/** A WebSocket made with `token`, subscribed to the heartbeat; records ticks and the close code. */
function operatorSocket(token: string): {
  client: Client;
  ticks: () => number;
  closedWith: () => number | undefined;
} {
  let ticks = 0;
  let closedWith: number | undefined;
  const client = createClient({
    url: `${t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
    on: { closed: (event) => (closedWith ??= (event as { code: number }).code) },
  });
  client.subscribe(
    { query: 'subscription { heartbeat(intervalSeconds: 1) }' },
    { next: () => void ticks++, error: () => {}, complete: () => {} },
  );
  return { client, ticks: () => ticks, closedWith: () => closedWith };
}

const code = (result: { errors?: ReadonlyArray<{ extensions?: { code?: unknown } }> }) =>
  result.errors?.[0]?.extensions?.code;

it('a read token queries and subscribes but cannot mutate; an admin token can; REST is unaffected', async () => {
  const read = await t.operatorToken(['read']);
  expect((await t.graphql(read, '{ viewer { name scopes } }')).data.viewer).toEqual({
    name: 'test',
    scopes: ['read'],
  });
  expect((await t.graphql(admin, '{ viewer { scopes } }')).data.viewer.scopes).toEqual(['read', 'admin']);
  expect((await t.graphql(read, '{ merchants { id } }')).errors).toBeUndefined();

  const merchant = await t.merchant('Scoped');
  for (const [mutation, variables] of [
    ['mutation { createMerchant(name: "By a reader") { id } }', {}],
    ['mutation { createOperatorToken(name: "more", scopes: [admin]) { token } }', {}],
    ['mutation ($m: ID!) { issueApiKey(merchantId: $m) { secret } }', { m: merchant.id }],
    [
      'mutation ($m: ID!) { setSettlementWallet(merchantId: $m, network: "eth", address: "0x00000000000000000000000000000000000000a1") { address } }',
      { m: merchant.id },
    ],
    ['mutation ($k: ID!) { revokeApiKey(keyId: $k) { id } }', { k: merchant.keyId }],
  ] as const) {
    const result = await t.graphql(read, mutation, variables);
    expect(code(result), mutation).toBe('forbidden');
    expect(result.errors?.[0]?.message).toMatch(/admin scope/);
  }
  expect((await t.graphql(read, '{ operatorTokens { id } }')).errors?.[0]?.extensions?.code).toBe(
    'forbidden',
  );
  // Nothing happened: the key still signs, and the reader made no merchant.
  const status = await t.signed(merchant, 'POST', '/v1/cashier/status', { session: 'cs_none' });
  expect(status.status).toBe(404);
  const names = (await t.graphql(admin, '{ merchants { name } }')).data.merchants.map(
    (m: { name: string }) => m.name,
  );
  expect(names).not.toContain('By a reader');

  // Over a WebSocket too: the check is on the mutation, not the transport.
  const ws = createClient({
    url: `${t.http.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${read}` },
    retryAttempts: 0,
  });
  try {
    const result = await new Promise<{ errors?: ReadonlyArray<{ extensions?: { code?: unknown } }> }>(
      (resolve, reject) =>
        ws.subscribe(
          { query: 'mutation { createMerchant(name: "By a reader") { id } }' },
          { next: resolve, error: reject, complete: () => {} },
        ),
    );
    expect(code(result)).toBe('forbidden');
  } finally {
    await ws.dispose();
  }

  expect((await t.graphql(admin, 'mutation { createMerchant(name: "By an admin") { name } }')).data).toEqual({
    createMerchant: { name: 'By an admin' },
  });
  // A merchant's signed REST mutation runs as before: no operator scope applies to it.
  const init = await t.signed(merchant, 'POST', '/v1/cashier/init', {});
  expect(init.status).toBe(200);
});

it('issues a token with an expiry, lists it, and refuses it once expired', async () => {
  const past = await t.graphql(
    admin,
    'mutation ($at: DateTime) { createOperatorToken(name: "late", expiresAt: $at) { id } }',
    {
      at: new Date(Date.now() - 1_000).toISOString(),
    },
  );
  expect(code(past)).toBe('validation');

  const expiresAt = new Date(Date.now() + 3_600_000);
  const issued = (
    await t.graphql(
      admin,
      'mutation ($at: DateTime) { createOperatorToken(name: "short-lived", expiresAt: $at) { id token name scopes expiresAt } }',
      { at: expiresAt.toISOString() },
    )
  ).data.createOperatorToken;
  expect(issued).toMatchObject({ name: 'short-lived', scopes: ['read'], expiresAt: expiresAt.toISOString() });
  expect((await t.graphql(issued.token, '{ viewer { id } }')).data.viewer.id).toBe(issued.id);

  const listed = (
    await t.graphql(
      admin,
      '{ operatorTokens { id name scopes createdAt lastUsedAt expiresAt revokedAt active } }',
    )
  ).data.operatorTokens.find((o: { id: string }) => o.id === issued.id);
  expect(listed).toMatchObject({
    name: 'short-lived',
    scopes: ['read'],
    expiresAt: expiresAt.toISOString(),
    revokedAt: null,
    active: true,
  });
  expect(Date.parse(listed.createdAt)).toBeLessThanOrEqual(Date.parse(listed.lastUsedAt));

  // Its hour is made to end a moment from now (a test cannot wait an hour); the open socket is
  // closed when it does, and every request after is refused.
  const socket = operatorSocket(issued.token);
  try {
    expect(await until(() => socket.ticks() > 0)).toBe(true);
    await t.app
      .fork()
      .getConnection()
      .execute(`update operator_tokens set expires_at = now() + interval '300 milliseconds' where id = ?`, [
        issued.id,
      ]);
    expect(await until(() => socket.closedWith())).toBe(4403);
    const refused = await until(
      async () => code(await t.graphql(issued.token, '{ viewer { id } }')) === 'unauthorized',
    );
    expect(refused).toBe(true);
  } finally {
    await socket.client.dispose();
  }
});

it('revokes a token through GraphQL: its next request is refused and its open WebSocket is closed with 4403', async () => {
  const { data } = await t.graphql(admin, 'mutation { createOperatorToken(name: "to revoke") { id token } }');
  const victim = data.createOperatorToken as { id: string; token: string };
  const socket = operatorSocket(victim.token);
  try {
    expect(await until(() => socket.ticks() > 0)).toBe(true);
    const revoked = await t.graphql(
      admin,
      'mutation ($id: ID!) { revokeOperatorToken(id: $id) { id active revokedAt } }',
      {
        id: victim.id,
      },
    );
    expect(revoked.data.revokeOperatorToken).toMatchObject({ id: victim.id, active: false });
    expect(await until(() => socket.closedWith())).toBe(4403);
    expect(code(await t.graphql(victim.token, '{ viewer { id } }'))).toBe('unauthorized');
    // A new socket with it is refused at once.
    const again = operatorSocket(victim.token);
    expect(await until(() => again.closedWith())).toBe(4403);
    await again.client.dispose();
  } finally {
    await socket.client.dispose();
  }
});

it('revokes a token from the CLI, and by hand in SQL: each closes the open WebSocket with 4403', async () => {
  // biome-ignore lint/suspicious/noExplicitAny: the CLI prints JSON whose shape the test checks
  const cli = cliFor(t) as (...args: string[]) => Promise<any>;
  const issued = await cli('operator:token', '--name', 'from cli', '--scope', 'read', '--expires-in', '30d');
  expect(issued).toMatchObject({ name: 'from cli', scopes: ['read'] });
  expect(Date.parse(issued.expiresAt)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
  const first = await cli('operator:token', '--name', 'cli admin');
  expect(first.scopes).toEqual(['read', 'admin']);

  const socket = operatorSocket(issued.token);
  try {
    expect(await until(() => socket.ticks() > 0)).toBe(true);
    const listed = (await cli('operator:list')).find((o: { id: string }) => o.id === issued.id);
    expect(listed).toMatchObject({ name: 'from cli', scopes: ['read'], active: true, revokedAt: null });
    expect(listed.lastUsedAt).not.toBeNull();
    expect(listed.expiresAt).toBe(issued.expiresAt);
    const revoked = await cli('operator:revoke', '--id', issued.id);
    expect(revoked).toMatchObject({ id: issued.id, name: 'from cli' });
    expect(await until(() => socket.closedWith())).toBe(4403);
    expect(code(await t.graphql(issued.token, '{ viewer { id } }'))).toBe('unauthorized');
  } finally {
    await socket.client.dispose();
  }
  // What the CLI changed is in the operators' audit log, by who ran it; what it read is not.
  const log = (
    await t.graphql(
      admin,
      '{ operatorAuditLog(first: 10) { nodes { operatorId operatorName operation arguments outcome } } }',
    )
  ).data.operatorAuditLog.nodes.filter((e: { operatorId: string | null }) => e.operatorId === null);
  expect(log.map((e: { operation: string }) => e.operation)).toEqual([
    'operator:revoke',
    'operator:token',
    'operator:token',
  ]);
  expect(log[0]).toMatchObject({
    operatorName: expect.stringMatching(/^cli: /),
    arguments: { id: issued.id },
    outcome: 'ok',
  });

  // The reproduction: `revoked_at` set directly in the database.
  const byHand = await t.operatorToken(['read']);
  const sql = operatorSocket(byHand);
  try {
    expect(await until(() => sql.ticks() > 0)).toBe(true);
    const id = (await t.graphql(byHand, '{ viewer { id } }')).data.viewer.id;
    await t.app
      .fork()
      .getConnection()
      .execute('update operator_tokens set revoked_at = now() where id = ?', [id]);
    expect(await until(() => sql.closedWith())).toBe(4403);
  } finally {
    await sql.client.dispose();
  }
}, 240_000);
