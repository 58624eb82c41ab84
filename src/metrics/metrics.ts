import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EntityManager } from '../db/orm.ts';
import { followerStatus } from '../followers/store.ts';

/**
 * What an operator watches, in the Prometheus text format: HTTP requests, each followed network's
 * lag, the webhook outbox and the job queue. Request figures are this process's own; the rest is
 * read from the database when scraped, so any API process shows the whole service (followers and
 * deliveries run in worker processes). Payout relays will add their wallets' balances and queued
 * relays here.
 */
export interface Metrics {
  registry: Registry;
  /** Counts one answered HTTP request; `route` is a fixed name (the route's path), never the raw URL. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(deps: { fork: () => EntityManager }): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route, method and status.',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route and method.',
    labelNames: ['route', 'method'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  const lagBlocks = new Gauge({
    name: 'follower_lag_blocks',
    help: 'Blocks between the network head and what a consumer of its chain follower has processed.',
    labelNames: ['network', 'stream'],
    registers: [registry],
  });
  const lagSeconds = new Gauge({
    name: 'follower_lag_seconds',
    help: "The same lag in the chain's own time.",
    labelNames: ['network', 'stream'],
    registers: [registry],
  });
  const sinceTick = new Gauge({
    name: 'follower_seconds_since_tick',
    help: "Seconds since the network's follower last recorded a tick (at most a minute while it runs and the chain stands still; grows when no process follows it).",
    labelNames: ['network'],
    registers: [registry],
  });
  const inconsistent = new Gauge({
    name: 'follower_node_inconsistent',
    help: "1 while the network's node contradicts itself (finalized block or head went back): nothing settles there.",
    labelNames: ['network'],
    registers: [registry],
  });
  const deliveries = new Gauge({
    name: 'webhook_deliveries',
    help: 'Webhook deliveries by state: pending (first attempt due), retrying, delivering, failed (dead).',
    labelNames: ['state'],
    registers: [registry],
  });
  const deliveryLatency = new Gauge({
    name: 'webhook_delivery_latency_seconds',
    help: 'Webhook attempt latency over the last 15 minutes, by quantile.',
    labelNames: ['quantile'],
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'job_queue_depth',
    help: 'Jobs waiting to run, by task.',
    labelNames: ['task'],
    registers: [registry],
  });

  // Read from the database at scrape time.
  const collect = async () => {
    const em = deps.fork();
    lagBlocks.reset();
    lagSeconds.reset();
    sinceTick.reset();
    inconsistent.reset();
    for (const s of await followerStatus(em)) {
      inconsistent.set({ network: s.network }, s.nodeProblem ? 1 : 0);
      if (s.lagBlocks !== null) lagBlocks.set({ network: s.network, stream: s.stream }, s.lagBlocks);
      if (s.lagSeconds !== null) lagSeconds.set({ network: s.network, stream: s.stream }, s.lagSeconds);
      if (s.tickedAt)
        sinceTick.set({ network: s.network }, (Date.now() - new Date(s.tickedAt).getTime()) / 1000);
    }
    deliveries.reset();
    const states = await em.execute<{ state: string; n: string }[]>(
      `select case when status = 'pending' and attempts > 0 then 'retrying' else status end as state, count(*) as n
         from webhook_deliveries where status <> 'delivered' group by 1`,
    );
    for (const state of ['pending', 'retrying', 'delivering', 'failed']) {
      deliveries.set({ state }, Number(states.find((r) => r.state === state)?.n ?? 0));
    }
    const [q] = await em.execute<{ p50: number | null; p95: number | null }[]>(
      `select percentile_cont(0.5) within group (order by latency_ms) as p50,
              percentile_cont(0.95) within group (order by latency_ms) as p95
         from webhook_attempts where started_at > now() - interval '15 minutes' and latency_ms is not null`,
    );
    deliveryLatency.reset();
    if (q?.p50 !== null && q?.p50 !== undefined) deliveryLatency.set({ quantile: '0.5' }, q.p50 / 1000);
    if (q?.p95 !== null && q?.p95 !== undefined) deliveryLatency.set({ quantile: '0.95' }, q.p95 / 1000);
    jobs.reset();
    // The queue exists once a worker has started against this database.
    const [queue] = await em.execute<{ present: boolean }[]>(
      `select to_regclass('graphile_worker._private_jobs') is not null as present`,
    );
    if (!queue?.present) return;
    const queued = await em.execute<{ task: string; n: string }[]>(
      `select t.identifier as task, count(*) as n from graphile_worker._private_jobs j
         join graphile_worker._private_tasks t on t.id = j.task_id
        where j.locked_at is null group by 1`,
    );
    for (const row of queued) jobs.set({ task: row.task }, Number(row.n));
  };
  const metricsText = registry.metrics.bind(registry);
  registry.metrics = async () => {
    await collect();
    return metricsText();
  };

  return {
    registry,
    observeRequest(route, method, status, seconds) {
      requests.inc({ route, method, status: String(status) });
      latency.observe({ route, method }, seconds);
    },
  };
}
