/**
 * The network's RPC endpoints and what we know about their health. Endpoints are preferred in the
 * configured order; one that fails is put on a cool-down and only used again when it ends or when
 * every other endpoint is cooling down too (a last resort beats giving up).
 */

export interface EndpointHealth {
  /** Redacted URL, safe for logs and health pages. */
  label: string;
  healthy: boolean;
  /** Epoch ms when the cool-down ends; 0 when healthy. */
  coolingUntil: number;
  consecutiveFailures: number;
  lastError?: string;
}

export interface Endpoint {
  readonly url: string;
  readonly label: string;
  coolingUntil: number;
  consecutiveFailures: number;
  lastError?: string;
  /** Set once the endpoint proved it serves the expected chain; cleared when it fails. */
  verified?: Promise<void>;
}

export class EndpointPool {
  readonly endpoints: Endpoint[];

  constructor(
    urls: readonly string[],
    labelOf: (url: string, index: number) => string,
    private readonly now: () => number = Date.now,
  ) {
    this.endpoints = urls.map((url, i) => ({
      url,
      label: labelOf(url, i),
      coolingUntil: 0,
      consecutiveFailures: 0,
    }));
  }

  /**
   * The endpoint to try next: the first healthy one not yet `tried` in this request, else the
   * untried cooling one whose cool-down ends first, else (every endpoint tried) the same rule over all.
   */
  pick(tried: ReadonlySet<Endpoint>): Endpoint {
    const now = this.now();
    const untried = this.endpoints.filter((e) => !tried.has(e));
    const pool = untried.length > 0 ? untried : this.endpoints;
    const ready = pool.find((e) => e.coolingUntil <= now);
    if (ready) return ready;
    return pool.reduce((best, e) => (e.coolingUntil < best.coolingUntil ? e : best));
  }

  succeeded(endpoint: Endpoint): void {
    endpoint.coolingUntil = 0;
    endpoint.consecutiveFailures = 0;
    endpoint.lastError = undefined;
  }

  failed(endpoint: Endpoint, error: string, cooldownMs: number): void {
    endpoint.coolingUntil = this.now() + cooldownMs;
    endpoint.consecutiveFailures += 1;
    endpoint.lastError = error;
    endpoint.verified = undefined;
  }

  health(): EndpointHealth[] {
    const now = this.now();
    return this.endpoints.map((e) => ({
      label: e.label,
      healthy: e.coolingUntil <= now,
      coolingUntil: e.coolingUntil,
      consecutiveFailures: e.consecutiveFailures,
      ...(e.lastError === undefined ? {} : { lastError: e.lastError }),
    }));
  }
}
