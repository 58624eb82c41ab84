import type { CronItem } from 'graphile-worker';
import { builder } from '../graphql/builder.ts';
import { guardOperatorMutations } from '../graphql/operator-mutations.ts';
import { approvalModule } from './approval/index.ts';
import { authModule } from './auth/index.ts';
import { balanceModule } from './balance/index.ts';
import { batchModule } from './batch/index.ts';
import { depositModule } from './deposit/index.ts';
import { hostedModule } from './hosted/index.ts';
import { ledgerModule } from './ledger/index.ts';
import { merchantModule } from './merchant/index.ts';
import type { GatewayModule } from './module.ts';
import { payoutModule } from './payout/index.ts';
import { relayModule } from './relay/index.ts';
import { reportModule } from './report/index.ts';
import { retentionModule } from './retention/index.ts';
import { sessionModule } from './session/index.ts';
import { strayModule } from './stray/index.ts';
import { systemModule } from './system/index.ts';
import { webhookModule } from './webhook/index.ts';

/**
 * Every module of the service, the one list the composition root, the ORM, the REST adapter, the
 * GraphQL schema, the worker, the chain followers and the relayer read. A new domain is a directory
 * with an `index.ts` and one line here. Order matters twice: routes are listed (and documented) in
 * this order, and a network's chain follower runs the consumers in this order within a tick.
 */
export const modules: readonly GatewayModule[] = [
  merchantModule,
  authModule,
  systemModule,
  webhookModule,
  ledgerModule,
  sessionModule,
  strayModule,
  hostedModule,
  payoutModule,
  relayModule,
  batchModule,
  approvalModule,
  balanceModule,
  depositModule,
  reportModule,
  retentionModule,
];

/** Every entity the ORM manages. */
export const entities = modules.flatMap((m) => m.entities ?? []);

/** Every `/v1` route: the declarative table the REST adapter and the OpenAPI document read. */
export const routes = modules.flatMap((m) => m.routes ?? []);

/** Every periodic job. */
export const crontab: CronItem[] = modules.flatMap((m) => m.crontab ?? []);

/**
 * The GraphQL schema: every module's types and fields, registered when its index was imported above.
 * Operator mutations are scope-checked and audited here, all of them (src/graphql/operator-mutations.ts).
 */
export const schema = guardOperatorMutations(builder.toSchema({ sortSchema: true }));
