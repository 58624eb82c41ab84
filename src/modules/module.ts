import type { EntitySchema } from '@mikro-orm/core';
import type { CronItem } from 'graphile-worker';
import type { NetworkConfig } from '../chains/networks.ts';
import type { JobTask } from '../db/jobs.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Consumer } from '../followers/types.ts';
import type { RelayKind } from '../relay/relay.entity.ts';
import type { RelayHandler } from '../relay/types.ts';
import type { RestRoute } from '../rest/route.ts';
import type { Services } from '../services.ts';

/**
 * What a domain module brings to the service, declared once in its `index.ts` and gathered in
 * `src/modules/index.ts`: the ORM, the REST adapter, the GraphQL schema, the worker, the chain
 * followers and the relayer all read that list and nothing else. A module's GraphQL types and
 * fields are registered on the builder by its `index.ts` importing its `*.graphql.ts` files.
 */
export interface GatewayModule {
  readonly name: string;
  /** The entities the ORM manages for it. */
  // biome-ignore lint/suspicious/noExplicitAny: entity schemas of every shape
  readonly entities?: readonly EntitySchema<any, any>[];
  /** Its `/v1` routes (the REST adapter and the OpenAPI document). */
  readonly routes?: readonly RestRoute[];
  /** Its background jobs and the tasks that run them. */
  readonly tasks?: (context: ModuleContext) => readonly JobTask[];
  /** Its periodic jobs. */
  readonly crontab?: readonly CronItem[];
  /** Its consumers of a network's chain follower (none when it has nothing to follow there). */
  readonly consumers?: (
    context: ModuleContext,
    network: NetworkConfig,
    options: FollowerOptions,
  ) => readonly Consumer[];
  /** The handlers of the relay requests it submits, by kind. */
  readonly relayHandlers?: (context: ModuleContext) => Partial<Record<RelayKind, RelayHandler>>;
  /** What it runs beside its tasks in each worker process: started with the worker, stopped before it. */
  readonly companion?: (context: ModuleContext) => Promise<{ stop(): Promise<void> }>;
}

/** What a module's daemons are built from: the services and fresh EntityManagers. */
export interface ModuleContext {
  services: Services;
  fork(): EntityManager;
}

/** How a process follows chains (tests and benchmarks set start blocks and clocks). */
export interface FollowerOptions {
  standbyRetryMs?: number;
  /** Names this process in `chain_followers` (default host:pid:random). */
  owner?: string;
  /** Session stream's first block when it has no cursor (tests start at their own deployment). */
  sessionStartBlock?: number;
  /** Payout stream's first block when it has no cursor (defaults to sessionStartBlock). */
  payoutStartBlock?: number;
  /** Deposit stream's first block when it has no cursor (defaults to sessionStartBlock). */
  depositStartBlock?: number;
  /** Least time between two sweeps of a network (tests shorten it). */
  sweepIntervalMs?: number;
  /** Wall clock for expiry and mining timeouts (tests). */
  now?: () => Date;
}
