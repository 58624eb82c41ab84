import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './ssrf.ts';

/** Bytes of the receiver's answer kept for operators. */
export const RESPONSE_BODY_LIMIT = 2048;
/** Reading stops after this much; the status code is all that decides the outcome. */
const DRAIN_LIMIT = 1 << 20;

export interface PostResult {
  /** Set when a response arrived. */
  statusCode?: number;
  /** First 2 KiB of the response body (UTF-8). */
  responseBody?: string;
  /** Set when no complete response arrived: connection error or timeout. */
  error?: string;
  latencyMs: number;
}

/**
 * POSTs `body` to `url`, connecting to the already vetted `address` whatever DNS says now (the custom
 * `lookup` is what defeats rebinding). One fresh connection per attempt (no keep-alive pool reuse
 * across targets), no redirects followed, and `timeoutMs` bounds the whole exchange. Never throws.
 */
export function postWebhook(input: {
  url: URL;
  address: ResolvedAddress;
  headers: Record<string, string>;
  body: string;
  /** The attempt's timeout, as reported in the error. */
  timeoutMs: number;
  /** What is left of it (DNS resolution may have used some); defaults to all of it. */
  remainingMs?: number;
}): Promise<PostResult> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const { address, family } = input.address;
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const payload = Buffer.from(input.body, 'utf8');
  const client = input.url.protocol === 'https:' ? https : http;

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, latencyMs: latency() });
    };
    const req = client.request(
      input.url,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: { ...input.headers, 'content-length': String(payload.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (kept < RESPONSE_BODY_LIMIT) {
            const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (seen > DRAIN_LIMIT) done();
        });
        const done = () => {
          finish({ statusCode: res.statusCode ?? 0, responseBody: Buffer.concat(chunks).toString('utf8') });
          res.destroy();
        };
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `timed out after ${input.timeoutMs} ms` });
      req.destroy();
    }, input.remainingMs ?? input.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => finish({ error: describe(error) }));
    req.end(payload);
  });
}

function describe(error: NodeJS.ErrnoException): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
