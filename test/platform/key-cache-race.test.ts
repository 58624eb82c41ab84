import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EntityManager } from '../../src/db/orm.ts';
import { ApiKey } from '../../src/modules/auth/auth.entity.ts';
import { signedHeaders } from '../../src/modules/auth/request-signing.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/** The API key cache against a revoke that lands while a lookup of the key is in flight. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

/** A signed request of `key` as the authenticator sees it. */
function request(key: { keyId: string; secret: string }) {
  const body = '{}';
  return {
    method: 'POST',
    target: '/v1/cashier/status',
    // As Node hands them over: names in lower case.
    headers: Object.fromEntries(
      Object.entries(
        signedHeaders(key.keyId, key.secret, { method: 'POST', target: '/v1/cashier/status', body }),
      ).map(([name, value]) => [name.toLowerCase(), value]),
    ),
    body: Buffer.from(body),
    clientIp: '127.0.0.1',
  };
}

/**
 * An EntityManager whose first ApiKey lookup reads the row and then waits for `release` before
 * answering: the revoke is made to land exactly between the read and the caching.
 */
function holdingFirstKeyRead(em: EntityManager) {
  let read!: () => void;
  let release!: () => void;
  const readDone = new Promise<void>((r) => (read = r));
  const released = new Promise<void>((r) => (release = r));
  let held = false;
  const proxy = new Proxy(em, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== 'findOne') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: Parameters<EntityManager['findOne']>) => {
        const row = await target.findOne(...args);
        if (args[0] === ApiKey && !held) {
          held = true;
          read();
          await released;
        }
        return row;
      };
    },
  });
  return { em: proxy, readDone, release };
}

it('a key revoked while a lookup of it is in flight is not cached as valid', async () => {
  const key = await t.merchant('Race');
  const auth = t.app.services.authenticator;
  const held = holdingFirstKeyRead(t.app.fork());
  const inFlight = auth.verify(held.em, request(key)).then(
    () => 'accepted',
    (error: { code?: string }) => error.code,
  );
  await held.readDone;
  // The row was read as valid; now the revoke lands (and this process forgets the merchant's keys).
  await t.app.services.merchants.revokeKey(t.app.fork(), key.keyId);
  held.release();
  // Revocation wins over the lookup that was in flight, and over every request after it.
  expect(await inFlight).toBe('unauthorized');
  await expect(auth.verify(t.app.fork(), request(key))).rejects.toMatchObject({ code: 'unauthorized' });
});

it('requests that find a key uncached together share one read of it', async () => {
  const key = await t.merchant('Herd');
  const auth = t.app.services.authenticator;
  let forks = 0;
  const fork = () => {
    forks++;
    return t.app.fork();
  };
  const results = await Promise.all(Array.from({ length: 10 }, () => auth.verify(fork, request(key))));
  expect(results.map((r) => r.keyId)).toEqual(Array(10).fill(key.keyId));
  // One EntityManager (and one read of the key and its allowlist) for the ten, not one each.
  expect(forks).toBe(1);
});
