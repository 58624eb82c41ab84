import type { App } from '../app.ts';
import { blockNumber } from '../chains/tron/status.ts';

/**
 * What `/readyz` checks: the database, and that at least one node of every network answers (a
 * network whose nodes are all down stops deposits, payouts and the follower; one node down is the
 * failover's business). Node answers are cached briefly, so a probe every second costs the nodes
 * little; each check is bounded in time.
 */

const NODE_TIMEOUT_MS = 2_000;
const NODE_CACHE_MS = 5_000;

export interface Readiness {
  ready: boolean;
  database: 'ok' | 'unreachable';
  /** Per network: `ok`, or why no node answered. */
  networks: Record<string, string>;
}

export function createReadiness(app: App) {
  const cache = new Map<string, { at: number; state: string }>();

  async function node(network: ReturnType<App['services']['networks']['list']>[number]): Promise<string> {
    const cached = cache.get(network.id);
    if (cached && Date.now() - cached.at < NODE_CACHE_MS) return cached.state;
    const clients = app.services.chainClients;
    const ask =
      network.kind === 'tron'
        ? blockNumber(clients.tronHttp(network), false)
        : clients.evm(network).getBlockNumber();
    let timer: NodeJS.Timeout | undefined;
    const state = await Promise.race([
      ask.then(() => 'ok'),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`no node answered within ${NODE_TIMEOUT_MS} ms`), NODE_TIMEOUT_MS);
      }),
    ])
      .catch((error: unknown) => `no node answers (${(error as Error).message})`)
      .finally(() => clearTimeout(timer));
    cache.set(network.id, { at: Date.now(), state });
    return state;
  }

  return async function check(): Promise<Readiness> {
    const database = await app.orm.em
      .getConnection()
      .execute('select 1')
      .then(() => 'ok' as const)
      .catch(() => 'unreachable' as const);
    const list = app.services.networks.list();
    const states = await Promise.all(list.map(node));
    const networks = Object.fromEntries(list.map((n, i) => [n.id, states[i]!]));
    return { ready: database === 'ok' && states.every((s) => s === 'ok'), database, networks };
  };
}
