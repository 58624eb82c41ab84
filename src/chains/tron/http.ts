import { unavailable } from '../../errors.ts';
import type { EndpointHealth } from '../evm/rpc/endpoints.ts';
import {
  type AttemptOptions,
  createFailover,
  DEFAULT_FAILOVER_CONFIG,
  type FailoverConfig,
} from '../evm/rpc/failover.ts';
import { postJson } from '../evm/rpc/http.ts';
import type { NetworkConfig } from '../networks.ts';
import { type ChainLogger, silentLogger } from '../types.ts';

/**
 * POSTs to a Tron node's HTTP API across the network's rpcUrls with the same timeouts, cool-downs,
 * retries and overall deadline as the EVM transport (failover.ts). Each URL must serve both
 * `/wallet/*` and `/walletsolidity/*` (as TronGrid and the dev facade do). Transport failures
 * (refused, timeout, HTTP 5xx/404, non-JSON) move on to the next URL; a JSON answer, even the node's
 * `{"Error": …}`, is returned to the caller, who knows what it means for its request.
 */

export type TronHttpOptions = FailoverConfig;

export interface TronHttp {
  readonly networkId: string;
  /** @throws AppError('unavailable') when no endpoint answered in time. */
  post<T = unknown>(path: string, body: object, options?: AttemptOptions): Promise<T>;
  health(): EndpointHealth[];
}

export function createTronHttp(params: {
  network: Pick<NetworkConfig, 'id' | 'rpcUrls'>;
  logger?: ChainLogger;
  options?: Partial<TronHttpOptions>;
}): TronHttp {
  const { network } = params;
  const failover = createFailover({
    networkId: network.id,
    urls: network.rpcUrls,
    logger: params.logger ?? silentLogger,
    config: { ...DEFAULT_FAILOVER_CONFIG, ...params.options },
  });
  return {
    networkId: network.id,
    post: <T>(path: string, body: object, options?: AttemptOptions) =>
      failover.run(
        path,
        (url, timeoutMs) => postJson(joinUrl(url, path), body, timeoutMs),
        options,
      ) as Promise<T>,
    health: () => failover.health(),
  };
}

const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** The node's `{"Error": "…"}` answer to a request it could not handle, if that is what `body` is. */
export function nodeError(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { Error?: unknown }).Error;
  return typeof error === 'string' ? error : undefined;
}

/** Hex-encoded UTF-8, as the node sends `message` fields, decoded for people; raw text passes through. */
export function decodeNodeMessage(message: unknown): string {
  if (typeof message !== 'string') return '';
  if (!/^([0-9a-fA-F]{2})+$/.test(message)) return message;
  return Buffer.from(message, 'hex').toString('utf8');
}

/** A JSON answer that is not what the endpoint should have sent for a well-formed request. */
export const malformed = (network: string, what: string, body: unknown) =>
  unavailable(
    `network ${network}: ${what} gave an unexpected answer: ${JSON.stringify(body)?.slice(0, 200)}`,
  );
