import { TransportError } from './errors.ts';

/**
 * One HTTP POST of a JSON-RPC payload, bounded in time. Everything that is not a parseable JSON body
 * becomes a TransportError, so the caller only ever sees a JSON value or a failure it may retry.
 */

/** Bodies larger than this are refused rather than parsed (a runaway getLogs, a hostile endpoint). */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export async function postJson(url: string, payload: unknown, timeoutMs: number): Promise<unknown> {
  // One signal covers connect, headers and body: a server that stalls mid-body still times out.
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(payload),
      signal,
    });
  } catch (error) {
    throw toTransportError(error, timeoutMs);
  }

  let text: string;
  try {
    text = await readBody(response);
  } catch (error) {
    throw toTransportError(error, timeoutMs);
  }
  if (response.status === 429) throw new TransportError('rate_limited', 'HTTP 429 Too Many Requests');

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Some nodes answer 4xx with a JSON-RPC error body; only a non-JSON body is a transport failure.
    const kind = response.ok ? 'invalid_response' : 'http';
    throw new TransportError(kind, `HTTP ${response.status}: body is not JSON (${snippet(text)})`);
  }
  if (response.status >= 500 || (!response.ok && !looksLikeJsonRpc(json))) {
    throw new TransportError('http', `HTTP ${response.status}: ${snippet(text)}`);
  }
  return json;
}

async function readBody(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw new TransportError('invalid_response', `response of ${declared} bytes exceeds the limit`);
  }
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES) {
    throw new TransportError('invalid_response', `response of ${text.length} bytes exceeds the limit`);
  }
  return text;
}

function looksLikeJsonRpc(json: unknown): boolean {
  const first = Array.isArray(json) ? json[0] : json;
  return typeof first === 'object' && first !== null && 'jsonrpc' in first;
}

function toTransportError(error: unknown, timeoutMs: number): TransportError {
  if (error instanceof TransportError) return error;
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new TransportError('timeout', `no answer within ${timeoutMs} ms`, { cause: error });
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  const detail = cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
  return new TransportError('network', `request failed: ${detail}`, { cause: error });
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat || '(empty)';
}
