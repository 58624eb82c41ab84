import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { App } from '../src/app.ts';
import type { NetworkConfig } from '../src/chains/networks.ts';
import { isAppError } from '../src/errors.ts';
import { evmSource } from '../src/followers/evm-source.ts';
import { createFollower, type Follower } from '../src/followers/follower.ts';
import { Leadership, LeadershipLost } from '../src/followers/leadership.ts';
import { claimFollowing } from '../src/followers/store.ts';
import { tronSource } from '../src/followers/tron-source.ts';
import type { ChainSource, Consumer } from '../src/followers/types.ts';
import { modules } from '../src/modules/index.ts';
import type { FollowerOptions } from '../src/modules/module.ts';

/**
 * Chain following in a worker process: for every network with a consumer, a loop that leads the
 * network when no other process does and ticks its follower, or stands by and tries again. It is not
 * a graphile-worker job: a follower runs for as long as its process lives, and holding a job slot
 * for that would take it from webhook deliveries and relays. Leadership is an advisory lock
 * (src/followers/leadership.ts), so a killed leader's networks are taken over at a standby's next try.
 */

/** How often a standby tries to take a network over. */
export const STANDBY_RETRY_MS = 1_000;
/** Pause after a failed tick (node down, database hiccup) before the next. */
export const RETRY_DELAY_MS = 2_000;

export type { FollowerOptions };

export interface ChainFollowers {
  leadership: Leadership;
  /** Networks followed by some process, as seen by this one. */
  networks: string[];
  stop(): Promise<void>;
}

/** The consumers of one network's follower: each module's, in the order of the module list. */
export function consumersOf(app: App, network: NetworkConfig, options: FollowerOptions = {}): Consumer[] {
  const context = { services: app.services, fork: () => app.fork() };
  return modules.flatMap((m) => m.consumers?.(context, network, options) ?? []);
}

/** The chain as the network's follower reads it: EVM with its finality, Tron solidified blocks. */
function sourceOf(app: App, network: NetworkConfig): ChainSource {
  const clients = app.services.chainClients;
  return network.kind === 'tron'
    ? tronSource(clients.tronHttp(network))
    : evmSource(clients.evm(network), network);
}

export function startChainFollowers(app: App, options: FollowerOptions = {}): ChainFollowers {
  const leadership = new Leadership({ databaseUrl: app.config.databaseUrl!, logger: app.logger });
  const owner = options.owner ?? `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const abort = new AbortController();
  const followed = app.services.networks
    .list()
    .map((network) => ({ network, consumers: consumersOf(app, network, options) }))
    .filter((f) => f.consumers.length > 0);

  const pause = (ms: number) => sleep(ms, undefined, { signal: abort.signal }).catch(() => {});

  async function follow(network: NetworkConfig): Promise<void> {
    const log = app.logger.child({ follower: network.id, owner });
    // A follower and its consumers are made anew each time this process (re)gains the network, as a
    // process that starts does: whatever they remember between ticks (what a pass found left to do,
    // cursors, the window) holds only while nobody else wrote the network's rows, which another
    // leader may have done meanwhile. Lost leadership is seen by a transaction's fence, by a tick's
    // LeadershipLost, or by the lock connection dropping (its locks may be gone and taken over before
    // this process takes them again).
    let follower: Follower | undefined;
    const forget = leadership.whenLost(() => {
      follower = undefined;
    });
    const lead = () =>
      createFollower({
        network,
        source: sourceOf(app, network),
        consumers: consumersOf(app, network, options),
        fork: () => app.fork(),
        fence: (tx) => leadership.fence(tx, network.id),
        logger: app.logger,
      });
    while (!abort.signal.aborted) {
      try {
        if (!(await leadership.tryLead(network.id))) {
          follower = undefined;
          await pause(options.standbyRetryMs ?? STANDBY_RETRY_MS);
          continue;
        }
        let current = follower;
        if (!current) {
          current = follower = lead();
          await claimFollowing(app.fork(), network.id, owner);
          log.info('following network');
        }
        const result = await current.tick();
        if (result.caughtUp) await pause(network.pollIntervalMs);
      } catch (error) {
        if (abort.signal.aborted) break;
        if (error instanceof LeadershipLost) {
          follower = undefined;
          log.warn('no longer leads the network; standing by');
          await leadership.resign(network.id);
          await pause(options.standbyRetryMs ?? STANDBY_RETRY_MS);
          continue;
        }
        // A degraded node or database is expected now and then: keep following, a little later.
        if (isAppError(error) && error.code === 'unavailable')
          log.warn('tick failed; retrying', { error: error.message });
        else log.error('tick failed', { error });
        await pause(RETRY_DELAY_MS);
      }
    }
    // A clean stop writes what idle blocks left in memory (the next leader would read them again).
    await follower?.flush().catch((error) => log.warn('could not write the cursors on stopping', { error }));
    forget();
  }

  const loops = followed.map((f) => follow(f.network));
  return {
    leadership,
    networks: followed.map((f) => f.network.id),
    async stop() {
      abort.abort();
      await Promise.all(loops);
      for (const f of followed) await leadership.resign(f.network.id);
      await leadership.close();
    },
  };
}
