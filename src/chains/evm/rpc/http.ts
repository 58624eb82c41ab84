import http from 'node:http';
import https from 'node:https';
import { TransportError } from './errors.ts';

/**
 * One HTTP POST of a JSON-RPC payload, bounded in time. Everything that is not a parseable JSON body
 * becomes a TransportError, so the caller only ever sees a JSON value or a failure it may retry.
 *
 * Plain `node:http` over kept-alive connections, not `fetch`: a follower polls its node every tick,
 * and fetch's per-request machinery (web streams for the body, an AbortSignal, header lists) was the
 * largest share of an idle service's CPU, several times what the request itself costs. Redirects are
 * not followed (a JSON-RPC endpoint that redirects a POST is misconfigured: it fails as `http`, naming
 * where it redirects to).
 */

/** Bodies larger than this are refused rather than parsed (a runaway getLogs, a hostile endpoint). */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * One pool of kept-alive connections per protocol. A free connection is closed after a second unused,
 * under the common 4–5 s keep-alive of nodes and load balancers, so a request rarely meets one the
 * server closed (and if it does, the failure is a retryable `network` one).
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 1_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 1_000 }),
};

interface Answer {
  status: number;
  text: string;
  /** Where a redirect points (its `Location`). */
  location?: string;
}

export async function postJson(url: string, payload: unknown, timeoutMs: number): Promise<unknown> {
  const { status, text, location } = await post(url, JSON.stringify(payload), timeoutMs);
  if (status === 429) throw new TransportError('rate_limited', 'HTTP 429 Too Many Requests');
  if (status >= 300 && status < 400 && location)
    throw new TransportError(
      'http',
      `HTTP ${status}: the node's URL redirects to ${snippet(location)}; configure the URL it redirects to`,
    );
  const ok = status >= 200 && status < 300;

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Some nodes answer 4xx with a JSON-RPC error body; only a non-JSON body is a transport failure.
    const kind = ok ? 'invalid_response' : 'http';
    throw new TransportError(kind, `HTTP ${status}: body is not JSON (${snippet(text)})`);
  }
  if (status >= 500 || (!ok && !looksLikeJsonRpc(json))) {
    throw new TransportError('http', `HTTP ${status}: ${snippet(text)}`);
  }
  return json;
}

/** The POST itself: one timer covers connect, headers and body (a server stalling mid-body times out). */
function post(url: string, body: string, timeoutMs: number): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch (error) {
      reject(new TransportError('network', `request failed: ${(error as Error).message}`, { cause: error }));
      return;
    }
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) {
      reject(new TransportError('network', `request failed: unsupported protocol ${target.protocol}`));
      return;
    }
    let settled = false;
    const fail = (error: TransportError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    const timer = setTimeout(
      () => fail(new TransportError('timeout', `no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on('error', (error) => fail(networkError(error)));
    request.on('response', (response) => {
      const declared = Number(response.headers['content-length'] ?? 0);
      if (declared > MAX_RESPONSE_BYTES) {
        fail(new TransportError('invalid_response', `response of ${declared} bytes exceeds the limit`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES)
          fail(new TransportError('invalid_response', `response of over ${size} bytes exceeds the limit`));
        else chunks.push(chunk);
      });
      response.on('error', (error) => fail(networkError(error)));
      response.on('aborted', () => fail(new TransportError('network', 'request failed: response aborted')));
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks, size).toString('utf8'),
          location: response.headers.location,
        });
      });
    });
    request.end(body);
  });
}

function looksLikeJsonRpc(json: unknown): boolean {
  const first = Array.isArray(json) ? json[0] : json;
  return typeof first === 'object' && first !== null && 'jsonrpc' in first;
}

function networkError(error: Error & { code?: string }): TransportError {
  return new TransportError('network', `request failed: ${error.code ?? error.message}`, { cause: error });
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat || '(empty)';
}
