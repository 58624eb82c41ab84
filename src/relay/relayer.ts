import { Wallet } from 'ethers';
import type { ChainClients } from '../chains/clients.ts';
import type { NetworkConfig } from '../chains/networks.ts';
import type { NetworkRegistry } from '../chains/registry.ts';
import { evmToTron } from '../chains/tron/address.ts';
import { addJob } from '../db/jobs.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../lib/logger.ts';
import { parseUnits } from '../money.ts';
import type { RelayKind, RelayRequest } from './relay.entity.ts';
import { RELAY_REQUEST_JOB } from './request.ts';
import { SenderSession } from './sender-session.ts';
import type { RelayHandler } from './types.ts';

/**
 * The transaction submitter's shared state: the relayer hot wallet of each network (from
 * `relayerPrivateKey` in the network file), its tuning, and the handlers of the kinds of calls it
 * relays (payouts, batches, sweeps), registered by their modules. The sending and watching live in
 * evm-send.ts / evm-watch.ts and tron.ts.
 */

/** Tuning of one network's relaying (network file `relay`, with these defaults). */
export interface RelayTuning {
  replaceAfterMs: number;
  bumpPercent: bigint;
  /** Ceiling of the fee per gas (wei); undefined: none. */
  maxFeePerGas?: bigint;
  /** Tron: the operator's cap on a relay's fee limit (sun); undefined: the chain's `getMaxFeeLimit`. */
  feeLimitSun?: number;
}

export const DEFAULT_REPLACE_AFTER_S = 60;
export const DEFAULT_BUMP_PERCENT = 15;
/** A retried request waits this long times 2^attempts, at most MAX_BACKOFF_MS. */
const BASE_BACKOFF_MS = 2_000;
const MAX_BACKOFF_MS = 60_000;

export function tuningOf(network: NetworkConfig): RelayTuning {
  const r = network.relay ?? {};
  return {
    replaceAfterMs: (r.replaceAfterSeconds ?? DEFAULT_REPLACE_AFTER_S) * 1000,
    bumpPercent: BigInt(r.bumpPercent ?? DEFAULT_BUMP_PERCENT),
    ...(r.maxFeePerGasGwei ? { maxFeePerGas: parseUnits(r.maxFeePerGasGwei, 9) } : {}),
    ...(r.feeLimitSun ? { feeLimitSun: r.feeLimitSun } : {}),
  };
}

/**
 * Statements that may write and carry everything they need in their arguments: outside a transaction
 * they run in a fenced one. (Entity changes are flushed inside `transactional` callbacks only.)
 */
const WRITES = new Set(['execute', 'nativeUpdate', 'nativeDelete']);

/** `em` whose transactions, and writes made outside one, run inside `transaction`. */
function fencedFork(
  em: EntityManager,
  transaction: <T>(work: (tx: EntityManager) => Promise<T>) => Promise<T>,
): EntityManager {
  return new Proxy(em, {
    get(target, prop) {
      if (prop === 'transactional')
        return (work: (tx: EntityManager) => Promise<unknown>) => transaction(work);
      if (prop === 'fork') return () => fencedFork(target.fork(), transaction);
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (WRITES.has(String(prop)))
        return (...args: unknown[]) =>
          transaction((tx) =>
            (Reflect.get(tx, prop, tx) as (...a: unknown[]) => Promise<unknown>).apply(tx, args),
          );
      return value.bind(target);
    },
  });
}

export interface RelayerDeps {
  networks: NetworkRegistry;
  clients: ChainClients;
  logger: Logger;
  fork: () => EntityManager;
  /** The service's database: a sending process holds its sign of life there (sender-session.ts). */
  databaseUrl?: string;
}

export class Relayer {
  private readonly handlers = new Map<RelayKind, RelayHandler>();
  private readonly wallets = new Map<string, Wallet>();
  /** This process as a sender: the token on its claims, alive as long as the process is. */
  readonly session: SenderSession;

  constructor(readonly deps: RelayerDeps) {
    this.session = new SenderSession({ databaseUrl: deps.databaseUrl, logger: deps.logger });
  }

  private closing = false;

  /** Ends this process's sender session (shutdown): its claims are free at once. */
  close(): Promise<void> {
    this.closing = true;
    return this.session.close();
  }

  /** Whether {@link close} was called: background re-checks (evm-gap.ts) stop. */
  get closed(): boolean {
    return this.closing;
  }

  /**
   * This relayer as the watcher of a network uses it: every write it makes goes through `transaction`,
   * the chain follower's fenced transaction, so a process that lost the network's leadership (a
   * partition that left it running) cannot record a relay outcome another leader is recording too.
   * Handlers, wallets and reads are shared with this relayer.
   */
  fencedBy(transaction: <T>(work: (tx: EntityManager) => Promise<T>) => Promise<T>): Relayer {
    const fork = () => fencedFork(this.deps.fork(), transaction);
    return Object.create(this, { deps: { value: { ...this.deps, fork }, enumerable: true } }) as Relayer;
  }

  /** Registers what a kind of call means (payout.relay.ts, batch.relay.ts, …). */
  register(kind: RelayKind, handler: RelayHandler): void {
    this.handlers.set(kind, handler);
  }

  handler(kind: RelayKind): RelayHandler {
    const handler = this.handlers.get(kind);
    if (!handler) throw new Error(`no relay handler registered for ${kind}`);
    return handler;
  }

  /** {@link RelayHandler.check} of many requests, each kind's in one go where its handler can. */
  async checkMany(requests: readonly RelayRequest[]): Promise<('send' | 'done')[]> {
    const out: ('send' | 'done')[] = new Array(requests.length);
    const kinds = new Set(requests.map((r) => r.kind));
    for (const kind of kinds) {
      const handler = this.handler(kind);
      const at = requests.flatMap((r, i) => (r.kind === kind ? [i] : []));
      const mine = at.map((i) => requests[i]!);
      const answers = handler.checkMany
        ? await handler.checkMany(mine)
        : await Promise.all(mine.map((r) => handler.check(r)));
      at.forEach((i, k) => {
        out[i] = answers[k]!;
      });
    }
    return out;
  }

  /** {@link RelayHandler.onBroadcast} of many requests in the caller's transaction, set-based where it can. */
  async onBroadcastMany(
    tx: EntityManager,
    sent: readonly { request: RelayRequest; txHash: string }[],
  ): Promise<void> {
    const kinds = new Set(sent.map((s) => s.request.kind));
    for (const kind of kinds) {
      const handler = this.handler(kind);
      const mine = sent.filter((s) => s.request.kind === kind);
      if (handler.onBroadcastMany) await handler.onBroadcastMany(tx, mine);
      else for (const s of mine) await handler.onBroadcast(tx, s.request, s.txHash);
    }
  }

  network(id: string): NetworkConfig {
    const network = this.deps.networks.get(id);
    if (!network) throw new Error(`relay request for unknown network ${id}`);
    return network;
  }

  /** The network's relayer wallet, or undefined when the network file gives it no key. */
  wallet(network: NetworkConfig): Wallet | undefined {
    if (!network.relayerPrivateKey) return undefined;
    let wallet = this.wallets.get(network.id);
    if (!wallet) {
      wallet = new Wallet(network.relayerPrivateKey);
      this.wallets.set(network.id, wallet);
    }
    return wallet;
  }

  /** The relayer address as the network spells it (`T…` on tron). */
  displayAddress(network: NetworkConfig): string | undefined {
    const wallet = this.wallet(network);
    if (!wallet) return undefined;
    return network.kind === 'tron' ? evmToTron(wallet.address) : wallet.address;
  }

  /** Runs the request's job again after a backoff (its attempts so far decide how long). */
  async later(
    em: EntityManager,
    request: Pick<RelayRequest, 'id' | 'attempts'>,
    delayMs?: number,
  ): Promise<void> {
    const wait = delayMs ?? Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** Math.min(10, request.attempts));
    await addJob(em, RELAY_REQUEST_JOB, { id: request.id }, { runAt: new Date(Date.now() + wait) });
  }

  /** Runs the request's job now. */
  async now(em: EntityManager, id: number): Promise<void> {
    await addJob(em, RELAY_REQUEST_JOB, { id });
  }

  /**
   * Records that the wallet cannot pay for gas; logs only when an episode starts (whichever process
   * sees it first), so a drained wallet is one warning, not one per attempt.
   */
  async outOfGas(network: NetworkConfig, address: string, detail: string): Promise<void> {
    const rows = await this.deps.fork().execute<{ network: string }[]>(
      `insert into relayer_wallets (network, address, next_nonce, out_of_gas_since, last_error, updated_at)
       values (?, ?, 0, now(), ?, now())
       on conflict (network, address) do update set out_of_gas_since = now(), last_error = excluded.last_error, updated_at = now()
         where relayer_wallets.out_of_gas_since is null
       returning network`,
      [network.id, address, detail],
    );
    if (rows.length > 0)
      this.deps.logger.warn('relayer wallet is out of gas; relays wait until it is funded', {
        network: network.id,
        wallet: address,
        detail,
      });
  }

  /** Ends an out-of-gas episode (logged once). */
  async gasRestored(network: NetworkConfig, address: string): Promise<void> {
    const rows = await this.deps.fork().execute<{ network: string }[]>(
      `update relayer_wallets set out_of_gas_since = null, updated_at = now()
        where network = ? and address = ? and out_of_gas_since is not null returning network`,
      [network.id, address],
    );
    if (rows.length > 0)
      this.deps.logger.info('relayer wallet can pay for gas again', { network: network.id, wallet: address });
  }
}
