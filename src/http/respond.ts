import type { ServerResponse } from 'node:http';
import type { AppError } from '../errors.ts';

/** Writes a JSON body; the body is one line so it can be signed or logged as is. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(payload);
}

/** The error envelope of section 7: `{"error":{"code","message"[,"details"]}}`. */
export function sendError(res: ServerResponse, error: AppError, headers: Record<string, string> = {}) {
  const message = error.code === 'internal' ? 'internal error' : error.message;
  sendJson(
    res,
    error.status,
    { error: { code: error.publicCode, message, ...(error.details ? { details: error.details } : {}) } },
    headers,
  );
}
