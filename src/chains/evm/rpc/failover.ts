import { unavailable } from '../../../errors.ts';
import type { ChainLogger } from '../../types.ts';
import { sleep } from '../util.ts';
import { type Endpoint, type EndpointHealth, EndpointPool } from './endpoints.ts';
import { RpcError, redactUrl, TransportError } from './errors.ts';
import { postJson } from './http.ts';

/**
 * Runs one logical RPC exchange against the network's endpoints: the preferred healthy endpoint
 * first, the next one at once when it fails, then further rounds with exponential backoff and jitter,
 * all inside an overall deadline. Only TransportErrors are retried; the node's own answers (RpcError)
 * return immediately. When nothing answers, the caller gets AppError('unavailable') naming the network.
 */

/** Per-attempt limit; a hanging endpoint costs at most this before the next one is tried. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** Extra attempts after every endpoint was tried once. */
export const RETRY_COUNT = 2;
export const BACKOFF_BASE_MS = 100;
export const BACKOFF_MAX_MS = 2_000;
/** How long a failed endpoint is skipped while others work. */
export const COOLDOWN_MS = 30_000;
/** An endpoint serving another chain is a configuration error; skip it for much longer. */
export const WRONG_CHAIN_COOLDOWN_MS = 10 * 60_000;
/** Whole exchange, all attempts and backoff included: callers never wait longer than this. */
export const DEADLINE_MS = 25_000;

export interface FailoverConfig {
  timeoutMs: number;
  retries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  cooldownMs: number;
  deadlineMs: number;
}

export const DEFAULT_FAILOVER_CONFIG: FailoverConfig = {
  timeoutMs: REQUEST_TIMEOUT_MS,
  retries: RETRY_COUNT,
  backoffBaseMs: BACKOFF_BASE_MS,
  backoffMaxMs: BACKOFF_MAX_MS,
  cooldownMs: COOLDOWN_MS,
  deadlineMs: DEADLINE_MS,
};

/** Per-call overrides, e.g. a log scanner that would rather shrink its range than wait. */
export interface AttemptOptions {
  timeoutMs?: number;
  retries?: number;
}

export type Send<T> = (url: string, timeoutMs: number) => Promise<T>;

export interface Failover {
  run<T>(what: string, send: Send<T>, options?: AttemptOptions): Promise<T>;
  health(): EndpointHealth[];
}

export function createFailover(params: {
  networkId: string;
  urls: readonly string[];
  /** When set, each endpoint must prove it serves this chain before it is used. */
  chainId?: number;
  logger: ChainLogger;
  config: FailoverConfig;
}): Failover {
  const { networkId, chainId, logger, config } = params;
  const pool = new EndpointPool(params.urls, (url, i) => `#${i + 1} ${redactUrl(url)}`);

  async function verify(endpoint: Endpoint, timeoutMs: number): Promise<void> {
    if (chainId === undefined) return;
    endpoint.verified ??= (async () => {
      const json = await postJson(
        endpoint.url,
        { jsonrpc: '2.0', id: 0, method: 'eth_chainId', params: [] },
        timeoutMs,
      );
      const result = (json as { result?: unknown } | null)?.result;
      if (typeof result !== 'string' || !/^0x[0-9a-f]+$/i.test(result)) {
        throw new TransportError(
          'invalid_response',
          `eth_chainId gave ${JSON.stringify(json)?.slice(0, 120)}`,
        );
      }
      if (BigInt(result) !== BigInt(chainId)) {
        throw new TransportError('wrong_chain', `serves chain ${BigInt(result)}, expected ${chainId}`);
      }
    })();
    try {
      await endpoint.verified;
    } catch (error) {
      endpoint.verified = undefined;
      throw error;
    }
  }

  async function run<T>(what: string, send: Send<T>, options: AttemptOptions = {}): Promise<T> {
    const deadline = Date.now() + config.deadlineMs;
    const attempts = pool.endpoints.length + (options.retries ?? config.retries);
    const tried = new Set<Endpoint>();
    let round = 0;
    let last: TransportError | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const endpoint = pool.pick(tried);
      if (tried.has(endpoint)) {
        // Every endpoint failed this exchange already: wait before hammering them again.
        const delay = backoff(round++, config);
        if (Date.now() + delay >= deadline) break;
        await sleep(delay);
      }
      tried.add(endpoint);
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const timeoutMs = Math.min(options.timeoutMs ?? config.timeoutMs, remaining);
      try {
        await verify(endpoint, timeoutMs);
        const result = await send(endpoint.url, timeoutMs);
        pool.succeeded(endpoint);
        return result;
      } catch (error) {
        if (error instanceof RpcError) {
          pool.succeeded(endpoint); // it answered; the answer is the caller's business
          throw error;
        }
        last =
          error instanceof TransportError ? error : new TransportError('invalid_response', String(error));
        pool.failed(
          endpoint,
          last.message,
          last.kind === 'wrong_chain' ? WRONG_CHAIN_COOLDOWN_MS : config.cooldownMs,
        );
        logger.warn('RPC endpoint failed', {
          network: networkId,
          endpoint: endpoint.label,
          what,
          error: last.message,
        });
      }
    }
    throw unavailable(
      `network ${networkId}: no RPC endpoint answered ${what}${last ? ` (last error: ${last.message})` : ''}`,
      last,
    );
  }

  return { run, health: () => pool.health() };
}

/** Exponential backoff with equal jitter (half fixed, half random), so many callers retrying at once spread out. */
export function backoff(
  round: number,
  config: Pick<FailoverConfig, 'backoffBaseMs' | 'backoffMaxMs'>,
): number {
  const ceiling = Math.min(config.backoffMaxMs, config.backoffBaseMs * 2 ** round);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
