import type { NetworkConfig } from '../../networks.ts';
import { type ChainLogger, silentLogger } from '../../types.ts';
import { chunk, mapLimit } from '../util.ts';
import type { EndpointHealth } from './endpoints.ts';
import { isTransientRpcError, RpcError, rpcErrorFrom, TransportError } from './errors.ts';
import {
  type AttemptOptions,
  createFailover,
  DEFAULT_FAILOVER_CONFIG,
  type FailoverConfig,
} from './failover.ts';
import { postJson } from './http.ts';

/**
 * Fetch-based JSON-RPC client for one EVM network: single requests and batches, with the timeouts,
 * retries and endpoint failover of failover.ts. ethers' provider is deliberately not used on this
 * path: it retries forever on some errors and hides which endpoint failed.
 */

/** Calls per HTTP batch; providers commonly cap batches at 100–1000. */
export const MAX_BATCH_SIZE = 100;
/** Parallel single requests when a provider refuses batches. */
export const BATCH_FALLBACK_CONCURRENCY = 8;

export interface RpcCall {
  method: string;
  params: readonly unknown[];
}

/** Per-call result of a batch: the node's answer or its JSON-RPC error for that call. */
export type RpcOutcome = { ok: true; result: unknown } | { ok: false; error: RpcError };

export interface RpcTransportOptions extends FailoverConfig {
  maxBatchSize: number;
}

export interface RpcTransport {
  readonly networkId: string;
  /** @throws RpcError (the node's answer) or AppError('unavailable') (no endpoint answered). */
  request<T = unknown>(method: string, params?: readonly unknown[], options?: AttemptOptions): Promise<T>;
  /** One outcome per call, in order. @throws AppError('unavailable') when no endpoint answered. */
  batch(calls: readonly RpcCall[], options?: AttemptOptions): Promise<RpcOutcome[]>;
  /** Endpoint health, for logs and the health check. */
  health(): EndpointHealth[];
}

/** Creates the transport for `network.rpcUrls`; endpoints must serve `network.chainId`. */
export function createRpcTransport(params: {
  network: Pick<NetworkConfig, 'id' | 'rpcUrls' | 'chainId'>;
  logger?: ChainLogger;
  options?: Partial<RpcTransportOptions>;
}): RpcTransport {
  const { network } = params;
  const maxBatchSize = params.options?.maxBatchSize ?? MAX_BATCH_SIZE;
  const failover = createFailover({
    networkId: network.id,
    urls: network.rpcUrls,
    chainId: network.chainId,
    logger: params.logger ?? silentLogger,
    config: { ...DEFAULT_FAILOVER_CONFIG, ...params.options },
  });
  let lastId = 0;
  const nextId = () => (lastId = (lastId + 1) % Number.MAX_SAFE_INTEGER);

  async function request<T>(
    method: string,
    params: readonly unknown[] = [],
    options?: AttemptOptions,
  ): Promise<T> {
    const id = nextId();
    const body = { jsonrpc: '2.0', id, method, params };
    return failover.run(
      method,
      async (url, timeoutMs) => unwrap(await postJson(url, body, timeoutMs), id),
      options,
    ) as T;
  }

  async function batchChunk(calls: readonly RpcCall[], options?: AttemptOptions): Promise<RpcOutcome[]> {
    const ids = calls.map(() => nextId());
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params }));
    const answered = await failover.run(
      `batch of ${calls.length} (${calls[0]!.method}…)`,
      async (url, timeoutMs) => {
        const json = await postJson(url, body, timeoutMs);
        // A single error object for the whole batch: batches unsupported or too large here.
        if (!Array.isArray(json)) return unwrapError(json);
        // Parsed inside the attempt so a garbage or rate-limited item fails over like any transport error.
        return new Map<unknown, RpcOutcome>(json.map((item) => [item?.id, outcomeOf(item)]));
      },
      options,
    );
    return mapLimit(calls, BATCH_FALLBACK_CONCURRENCY, async (call, i): Promise<RpcOutcome> => {
      const known = answered.get(ids[i]);
      if (known) return known;
      // Missing from the answer (or batch refused): ask for this one on its own.
      try {
        return { ok: true, result: await request(call.method, call.params, options) };
      } catch (error) {
        if (error instanceof RpcError) return { ok: false, error };
        throw error;
      }
    });
  }

  async function batch(calls: readonly RpcCall[], options?: AttemptOptions): Promise<RpcOutcome[]> {
    const parts = await Promise.all(chunk(calls, maxBatchSize).map((part) => batchChunk(part, options)));
    return parts.flat();
  }

  return { networkId: network.id, request, batch, health: () => failover.health() };
}

/** The result of a single response, or its error thrown (transient ones as TransportError). */
function unwrap(json: unknown, id: number): unknown {
  const outcome = outcomeOf(json);
  const obj = json as { id?: unknown };
  if (obj.id !== undefined && obj.id !== id)
    throw new TransportError('invalid_response', 'response id mismatch');
  if (!outcome.ok) throw outcome.error;
  return outcome.result;
}

function outcomeOf(json: unknown): RpcOutcome {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new TransportError(
      'invalid_response',
      `not a JSON-RPC response: ${JSON.stringify(json)?.slice(0, 120)}`,
    );
  }
  const obj = json as { result?: unknown; error?: unknown };
  if (obj.error !== undefined && obj.error !== null) {
    const error = rpcErrorFrom(obj.error);
    if (isTransientRpcError(error)) throw new TransportError('rate_limited', error.message);
    return { ok: false, error };
  }
  if (!('result' in obj))
    throw new TransportError('invalid_response', 'response has neither result nor error');
  return { ok: true, result: obj.result };
}

/** A non-array answer to a batch: an error object means "ask one by one"; anything else is garbage. */
function unwrapError(json: unknown): Map<unknown, RpcOutcome> {
  const outcome = outcomeOf(json);
  if (outcome.ok) throw new TransportError('invalid_response', 'batch answered with a single result');
  return new Map();
}
