import type { Plugin } from 'graphql-yoga';
import type { CorsOrigins } from '../config.ts';

/**
 * CORS of `/graphql` (GRAPHQL_CORS_ORIGINS). Operators authenticate with a bearer header, never a
 * cookie, so no answer allows credentials: a page on an allowed origin may send the operator's token
 * if it has it, and no page can ride on a browser's ambient credentials. An origin not allowed gets
 * no CORS headers at all (the browser then refuses the answer to that page); yoga's default would
 * echo any origin with credentials allowed.
 */

const LOOPBACK = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Whether a browser page on `origin` may read `/graphql` answers. */
export function corsAllows(origins: CorsOrigins, origin: string): boolean {
  if (origins === 'any') return true;
  if (origins === 'loopback') return LOOPBACK.test(origin);
  return origins.includes(origin);
}

/** yoga's `cors` option: the request's origin when allowed, else no CORS headers. */
export function graphqlCors(origins: CorsOrigins) {
  return (request: Request) => {
    const origin = request.headers.get('origin');
    if (origin === null || !corsAllows(origins, origin)) return false as const;
    return {
      origin: origins === 'any' ? '*' : origin,
      credentials: false,
      methods: ['GET', 'POST'],
      allowedHeaders: ['authorization', 'content-type', 'accept'],
      maxAge: 600,
    };
  };
}

/**
 * Whether answers differ by the request's Origin (they then carry `Vary: Origin`, so a shared cache
 * never hands one origin's answer to another).
 */
export const corsVariesByOrigin = (origins: CorsOrigins) => origins !== 'any';

/** Adds `Vary: Origin` to an answer to a request with an Origin (yoga adds it only for some). */
export const varyByOrigin: Plugin = {
  onResponse({ request, response }) {
    if (request.headers.has('origin') && !/\borigin\b/i.test(response.headers.get('vary') ?? ''))
      response.headers.append('vary', 'Origin');
  },
};
