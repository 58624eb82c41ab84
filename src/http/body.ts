import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';
import { findNul, jsonTooDeep, NUL_MESSAGE, nestingMessage } from '../lib/validation.ts';

/** D2: request bodies over 1 MiB are refused with 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the raw body, refusing more than MAX_BODY_BYTES without buffering the rest (the request is
 * destroyed then, as an abandoned async iteration would). Listens for the stream's events directly:
 * an async iterator costs several promises per request on the hottest path.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.reject(bodyTooLarge());
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(prematureClose());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: unknown) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      settle(bodyTooLarge());
      req.destroy();
    };
    const onEnd = () => settle();
    // Closed before its end: the client went away mid-body.
    const onClose = () => settle(prematureClose());
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', settle);
    req.once('close', onClose);
  });
}

const prematureClose = () =>
  Object.assign(new Error('request closed before its body was read'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });

/** The 413 of D2, on /v1 and /graphql alike. */
export const bodyTooLarge = () =>
  new AppError('payload_too_large', `request body exceeds ${MAX_BODY_BYTES} bytes`);

/** A POST body must be a JSON object (D2) without NUL characters; an empty body counts as `{}`. */
export function parseJsonObject(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  const text = raw.toString('utf8');
  // Before JSON.parse and findNul, which walk the value; the depth scan itself is linear.
  if (jsonTooDeep(text)) throw new AppError('validation', nestingMessage('request body'));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('validation', 'request body is not valid JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new AppError('validation', 'request body must be a JSON object');
  }
  const nul = findNul(value);
  if (nul) throw new AppError('validation', `${nul}: ${NUL_MESSAGE}`);
  return value as Record<string, unknown>;
}
