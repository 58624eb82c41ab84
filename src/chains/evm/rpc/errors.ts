/**
 * The two ways a JSON-RPC request fails. A `TransportError` says nothing about the request itself
 * (connection refused, timeout, HTTP 5xx, garbage body): another endpoint or a later attempt may
 * succeed, so the transport retries it. An `RpcError` is the node's answer to the request (a revert,
 * "nonce too low", "query returned more than 10000 results"): retrying elsewhere would give the same
 * answer, so it goes straight back to the caller.
 */

/** Kinds of transport failure; `timeout` matters to callers that can shrink their request instead. */
export type TransportFailure =
  | 'timeout'
  | 'network'
  | 'http'
  | 'invalid_response'
  | 'rate_limited'
  | 'wrong_chain';

export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: TransportFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A JSON-RPC error object returned by the node. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    /** Revert data or provider-specific detail, as sent. */
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** JSON-RPC errors that are really the provider being overloaded, not an answer: fail over. */
const TRANSIENT_RPC_MESSAGE =
  /rate limit|too many requests|capacity exceeded|temporarily unavailable|try again later/i;

export function isTransientRpcError(error: { code: number; message: string }): boolean {
  return error.code === 429 || TRANSIENT_RPC_MESSAGE.test(error.message);
}

/** EVM execution reverted (eth_call / eth_estimateGas); geth uses code 3, others -32000 + text. */
export function isRevert(error: unknown): boolean {
  return error instanceof RpcError && (error.code === 3 || /revert/i.test(error.message));
}

/** Parses a JSON-RPC error object, tolerating providers that omit or mistype fields. */
export function rpcErrorFrom(value: unknown): RpcError {
  const obj = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const code = typeof obj.code === 'number' ? obj.code : -32603;
  const message = typeof obj.message === 'string' ? obj.message : JSON.stringify(value);
  return new RpcError(code, printable(message), obj.data);
}

/**
 * A node's words as text a database column can hold. Its messages end up in rows (a relay's
 * `last_error`, the reason it was given up), and PostgreSQL refuses a NUL in text: one node (anvil)
 * prints a custom error's data as raw bytes ("custom error 0x39c10f90: \u0000\u0000…"), and the
 * write that records the refusal then fails on every retry, leaving the relay and every later nonce
 * of its wallet stuck. Control characters but tab and newline are written as `\xNN`.
 */
export function printable(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 0x20 && code !== 0x7f) || code === 0x09 || code === 0x0a) continue;
    out += `${text.slice(from, i)}\\x${code.toString(16).padStart(2, '0')}`;
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Strips credentials and path (API keys often live there) so a URL can be logged. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid url)';
  }
}
