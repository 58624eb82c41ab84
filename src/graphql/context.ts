import type { EntityManager } from '../db/orm.ts';
import type { OperatorScope } from '../lib/operator-scopes.ts';
import type { Services } from '../services.ts';

/** An operator token that verified: its id, name and scopes. */
export type OperatorActor = {
  kind: 'operator';
  operatorId: string;
  name: string;
  scopes: readonly OperatorScope[];
};

/** Who is calling: a merchant through the signed REST API, or an operator through `/graphql`. */
export type Actor =
  | { kind: 'merchant'; merchantId: string; keyId: string }
  | OperatorActor
  | { kind: 'hosted'; sessionId: string }
  | { kind: 'anonymous' };

/** Per-request context: a forked EntityManager, the services and the actor. */
export interface Context {
  em: EntityManager;
  services: Services;
  actor: Actor;
  /** Client IP as seen by the service (after trusted proxies). */
  clientIp: string | undefined;
}
