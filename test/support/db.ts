import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** A fresh database cloned from the migrated template; one per test file (or per test that needs it). */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject('pgAdminUrl');
  const template = inject('pgTemplate');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * `tx` with its statements counted: each `execute`, `find` and `findOne` call through the returned
 * manager adds one to `count()` (what a consumer's handler ran in the transaction it was given).
 */
export function countingStatements<T extends object>(tx: T): { em: T; count: () => number } {
  let statements = 0;
  const em = new Proxy(tx, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (key === 'execute' || key === 'find' || key === 'findOne') statements++;
        return value.apply(target, args);
      };
    },
  });
  return { em, count: () => statements };
}
