import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from './ssrf.ts';

/** Bytes of the receiver's answer kept for operators. */
export const RESPONSE_BODY_LIMIT = 2048;
/** Reading stops after this much; the status code is all that decides the outcome. */
const DRAIN_LIMIT = 1 << 20;
/** Open connections per origin and vetted address; a merchant's in-flight cap keeps this from queueing. */
export const SOCKETS_PER_ORIGIN = 16;
/** An idle kept-alive connection is closed after this (below node:http's 5 s server default). */
const IDLE_SOCKET_MS = 4_000;
/** Pools kept at most; the least recently used idle one is closed beyond it. */
const MAX_POOLS = 512;

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
 * Keep-alive connection pools, one per origin *and* vetted address: a connection is reused only for
 * the address the SSRF check approved for that origin, so a DNS answer that changes later never
 * inherits a connection made for another address, and a new answer is vetted before it is used.
 */
export class ConnectionPools {
  private readonly pools = new Map<string, http.Agent>();

  agent(url: URL, address: ResolvedAddress): http.Agent {
    const key = `${url.protocol}//${url.host}@${address.address}`;
    let agent = this.pools.get(key);
    if (agent) {
      // Most recently used last: eviction takes from the front.
      this.pools.delete(key);
      this.pools.set(key, agent);
      return agent;
    }
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all)
        (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address: address.address, family: address.family },
        ]);
      else callback(null, address.address, address.family);
    };
    const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
    agent = new Agent({
      keepAlive: true,
      maxSockets: SOCKETS_PER_ORIGIN,
      maxFreeSockets: SOCKETS_PER_ORIGIN,
      timeout: IDLE_SOCKET_MS,
      scheduling: 'lifo',
      lookup,
    });
    this.pools.set(key, agent);
    if (this.pools.size > MAX_POOLS) this.evict();
    return agent;
  }

  private evict(): void {
    for (const [key, agent] of this.pools) {
      if (this.pools.size <= MAX_POOLS) return;
      const busy = Object.keys(agent.sockets).length + Object.keys(agent.requests).length;
      if (busy) continue;
      agent.destroy();
      this.pools.delete(key);
    }
  }

  /** Closes every pooled connection (shutdown, tests). */
  close(): void {
    for (const agent of this.pools.values()) agent.destroy();
    this.pools.clear();
  }
}

/**
 * POSTs `body` to `url` over `agent` (a pool connecting only to the vetted address, see
 * ConnectionPools; the pinned address is what defeats rebinding). No redirects are followed and
 * `timeoutMs` bounds the whole exchange, including the wait for a pooled connection. A kept-alive
 * connection the receiver closed just before reuse (reset before any answer) is retried once on a
 * fresh connection, as node:http documents: the receiver saw nothing of it. Never throws.
 */
export async function postWebhook(input: {
  url: URL;
  agent: http.Agent;
  headers: Record<string, string>;
  body: string;
  /** The attempt's timeout, as reported in the error. */
  timeoutMs: number;
  /**
   * When the attempt started (`performance.now()`; default now): the timeout and the reported latency
   * both count from there, name resolution included.
   */
  startedAt?: number;
}): Promise<PostResult> {
  const started = input.startedAt ?? performance.now();
  const deadline = started + input.timeoutMs;
  const payload = Buffer.from(input.body, 'utf8');
  for (let round = 0; ; round++) {
    const { result, staleSocket } = await postOnce(input, payload, Math.max(1, deadline - performance.now()));
    if (!staleSocket || round > 0 || performance.now() >= deadline)
      return { ...result, latencyMs: Math.round(performance.now() - started) };
  }
}

function postOnce(
  input: { url: URL; agent: http.Agent; headers: Record<string, string>; timeoutMs: number },
  payload: Buffer,
  remainingMs: number,
): Promise<{ result: Omit<PostResult, 'latencyMs'>; staleSocket: boolean }> {
  const client = input.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let answered = false;
    const finish = (result: Omit<PostResult, 'latencyMs'>, staleSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ result, staleSocket });
    };
    const req = client.request(
      input.url,
      {
        method: 'POST',
        agent: input.agent,
        headers: { ...input.headers, 'content-length': String(payload.length) },
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let kept = 0;
        let seen = 0;
        const done = () => {
          finish({ statusCode: res.statusCode ?? 0, responseBody: Buffer.concat(chunks).toString('utf8') });
          // A body read to its end leaves the connection reusable; anything else closes it.
          if (!res.complete) res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (kept < RESPONSE_BODY_LIMIT) {
            const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (seen > DRAIN_LIMIT) done();
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `timed out after ${input.timeoutMs} ms` });
      req.destroy();
    }, remainingMs);
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        { error: describe(error) },
        req.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE'),
      ),
    );
    req.end(payload);
  });
}

function describe(error: NodeJS.ErrnoException): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
