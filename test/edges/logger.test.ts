import { GraphQLError } from 'graphql';
import { afterEach, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors.ts';
import { createLogger } from '../../src/lib/logger.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests walk the logged JSON
type Json = any;

/** A 500 is logged once with the whole chain: every `cause`, GraphQL's `originalError`, and stacks. */

afterEach(() => vi.restoreAllMocks());

function capture(run: () => void): Record<string, unknown> {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  run();
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

it('logs an error with its cause chain, stacks and error codes', () => {
  const root = Object.assign(new Error('connect ECONNRESET'), { code: 'ECONNRESET' });
  const middle = new Error('query failed', { cause: root });
  const top = new AppError('internal', 'internal error', undefined, { cause: middle });
  const line = capture(() => createLogger('info').error('request failed', { error: top }));
  const error = line.error as Json;
  expect(error).toMatchObject({ name: 'AppError', message: 'internal error', code: 'internal' });
  expect(error.stack).toMatch(/logger\.test\.ts/);
  expect(error.cause).toMatchObject({ message: 'query failed' });
  expect(error.cause.stack).toMatch(/logger\.test\.ts/);
  expect(error.cause.cause).toMatchObject({ message: 'connect ECONNRESET', code: 'ECONNRESET' });
});

it('follows GraphQL’s originalError and the errors of an AggregateError', () => {
  const inner = new TypeError('cannot read properties of undefined');
  const gql = new GraphQLError('cannot read properties of undefined', { originalError: inner, path: ['a'] });
  const agg = new AggregateError([new Error('first'), new Error('second')], 'both failed');
  const line = capture(() => createLogger('info').error('failed', { error: gql, other: agg }));
  expect(line.error).toMatchObject({ path: ['a'], originalError: { name: 'TypeError' } });
  expect((line.other as Json).errors).toMatchObject([{ message: 'first' }, { message: 'second' }]);
});

it('survives a cause cycle and a non-error cause', () => {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  const line = capture(() =>
    createLogger('info').error('cycle', { error: b, weird: new Error('x', { cause: 42 }) }),
  );
  expect((line.error as Json).cause.message).toBe('a');
  expect((line.weird as Json).cause).toBe(42);
});
