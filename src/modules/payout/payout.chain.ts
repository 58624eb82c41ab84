import { getAddress, Interface } from 'ethers';
import type { ChainClients } from '../../chains/clients.ts';
import type { EvmLog, LogFilter } from '../../chains/evm/index.ts';
import { getAddressRemembered } from '../../chains/evm/util.ts';
import type { NetworkConfig, TokenConfig } from '../../chains/networks.ts';
import type { NetworkRegistry } from '../../chains/registry.ts';
import { evmToTron, isTronAddress, tronToEvm } from '../../chains/tron/address.ts';
import { solidifiedHeaders, solidifiedLogs } from '../../chains/tron/blocks.ts';
import { type EnergyPrices, energyPrices, estimateEnergy, feeLimitCap } from '../../chains/tron/energy.ts';
import { callConstant } from '../../chains/tron/trc20.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AppError, unavailable, unsupported, validation } from '../../errors.ts';
import { AmountError, formatUnits, parseUnits } from '../../money.ts';
import { Merchant, SettlementWallet } from '../merchant/merchant.entity.ts';

/**
 * Where a merchant's payouts come from and go through on one network: the payout wallet (the
 * settlement wallet on EVM networks, the separate Tron payout wallet on `tron`, D11), the router that
 * may pull from it, and the token. Approvals, single payouts and batches all resolve their target
 * here, so they agree on which wallet and which router a request means.
 */

/** Native coins are not ERC-20 tokens: a payout router cannot pull them (section 4.11). */
const NATIVE_COINS = new Set(['ETH', 'BNB', 'TRX', 'MATIC', 'POL', 'AVAX', 'FTM', 'CELO', 'XDAI', 'SOL']);

/** The router views payouts read (both routers record used nonces; the batch router also paid items). */
const ROUTER_VIEWS = new Interface([
  'function nonceUsed(address merchant, uint256 nonce) view returns (bool)',
  'function isItemPaid(address merchant, uint256 nonce, uint256 index) view returns (bool)',
]);

const NONCE_USED_SELECTOR = ROUTER_VIEWS.getFunction('nonceUsed')!.selector;

/**
 * `nonceUsed(signer, nonce)` calldata, as `ROUTER_VIEWS.encodeFunctionData` gives it: a relayer checks
 * a whole queue at once, and ethers' generic ABI coder (checksums, typed values) cost ~1 ms an order.
 */
export function nonceUsedCalldata(signer: string, nonce: bigint): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(signer)) throw new TypeError(`not an address: ${signer}`);
  if (nonce < 0n || nonce >= 2n ** 256n) throw new RangeError(`nonce out of range: ${nonce}`);
  return `${NONCE_USED_SELECTOR}${signer.slice(2).toLowerCase().padStart(64, '0')}${nonce.toString(16).padStart(64, '0')}`;
}

/** An ABI `bool` return value read as ethers' decoder reads it: the first word, true when not zero; shorter data throws. */
function decodeBool(result: unknown): boolean {
  if (typeof result !== 'string' || !/^0x([0-9a-fA-F]{64})+$/.test(result))
    throw new Error(`nonceUsed: not an ABI bool: ${String(result).slice(0, 80)}`);
  return BigInt(result.slice(0, 66)) !== 0n;
}

const ERC20_TRANSFER_FROM = new Interface([
  'function transferFrom(address from, address to, uint256 value) returns (bool)',
]);
/** The batch router's energy besides the transfers: the call (signature check, nonce) and each item. */
const TRON_ENERGY_PER_CALL = 120_000n;
const TRON_ENERGY_PER_ITEM = 15_000n;

/** Which router a payout goes through. */
export type RouterKind = 'single' | 'batch';

export interface PayoutTarget {
  network: NetworkConfig;
  token: TokenConfig;
  /** The payout wallet as configured and shown: checksummed `0x` on EVM, `T…` on `tron`. */
  wallet: string;
  /** The payout wallet's 20-byte `0x` form (checksummed): what signatures recover to. */
  walletHex: string;
  /** The router (checksummed `0x`; on `tron` the 20-byte form of the contract). */
  router: string;
  routerKind: RouterKind;
}

export class PayoutChains {
  constructor(
    private readonly networks: NetworkRegistry,
    private readonly clients: ChainClients,
  ) {}

  /** The network, or `unsupported` when it is unknown. */
  network(id: string): NetworkConfig {
    const network = this.networks.get(id);
    if (!network) throw unsupported(`network: unknown network ${id}`);
    return network;
  }

  /** A configured ERC-20/TRC-20 token of the network; a native coin or an unknown symbol is `unsupported`. */
  token(network: NetworkConfig, symbol: string): TokenConfig {
    const token = network.tokens.find((t) => t.symbol === symbol);
    if (token) return token;
    if (NATIVE_COINS.has(symbol.toUpperCase()))
      throw unsupported(`token: ${symbol} is a native coin; payouts move tokens only`);
    throw unsupported(`token: ${symbol} is not available on ${network.id}`);
  }

  /** The router of the kind on the network, or `unsupported` when none is configured. */
  router(network: NetworkConfig, kind: RouterKind): string {
    const address = kind === 'batch' ? network.contracts.batchPayoutRouter : network.contracts.payoutRouter;
    if (!address)
      throw unsupported(`network: ${network.id} has no ${kind === 'batch' ? 'batch ' : ''}payout router`);
    return getAddress(address);
  }

  /** The merchant's payout wallet on the network, or `unsupported` when none is set. */
  async wallet(
    em: EntityManager,
    merchantId: string,
    network: NetworkConfig,
  ): Promise<{ wallet: string; walletHex: string }> {
    if (network.kind === 'tron') {
      const merchant = await em.findOne(Merchant, { id: merchantId }, { fields: ['tronPayoutWallet'] });
      return this.walletOf(network, { tronPayoutWallet: merchant?.tronPayoutWallet ?? null });
    }
    const row = await em.findOne(SettlementWallet, { merchant: merchantId, network: network.id });
    return this.walletOf(network, { settlementWallet: row?.address ?? null });
  }

  /**
   * {@link wallet} from columns already read (the settlement wallet's `address` of the network, the
   * merchant's `tron_payout_wallet`): the same answer and the same refusals, for a caller that read
   * them in the statement that read its own row.
   */
  walletOf(
    network: NetworkConfig,
    read: { settlementWallet?: string | null; tronPayoutWallet?: string | null },
  ): { wallet: string; walletHex: string } {
    if (network.kind === 'tron') {
      const wallet = read.tronPayoutWallet;
      if (!wallet || !isTronAddress(wallet))
        throw unsupported(`network: no Tron payout wallet is configured for this merchant`);
      return { wallet, walletHex: tronToEvm(wallet) };
    }
    if (!read.settlementWallet)
      throw unsupported(`network: no settlement (payout) wallet is configured on ${network.id}`);
    const walletHex = getAddressRemembered(read.settlementWallet);
    return { wallet: walletHex, walletHex };
  }

  /** Network, token, router and payout wallet of a request, each refused with the code of section 4.11. */
  async target(
    em: EntityManager,
    merchantId: string,
    request: { network: string; token: string; routerKind: RouterKind },
  ): Promise<PayoutTarget> {
    const network = this.network(request.network);
    const token = this.token(network, request.token);
    const router = this.router(network, request.routerKind);
    const { wallet, walletHex } = await this.wallet(em, merchantId, network);
    return { network, token, wallet, walletHex, router, routerKind: request.routerKind };
  }

  /** Whole units → base units, `validation` naming `field` when it is not a positive amount of the token. */
  parseAmount(token: TokenConfig, amount: string, field = 'amount'): bigint {
    let raw: bigint;
    try {
      raw = parseUnits(amount, token.decimals);
    } catch (error) {
      throw validation(`${field}: ${error instanceof AmountError ? error.message : 'not an amount'}`);
    }
    if (raw <= 0n) throw validation(`${field}: must be positive`);
    if (raw >= 1n << 256n) throw validation(`${field}: too large`);
    return raw;
  }

  /** A recipient in the network's spelling, as its 20-byte `0x` form; `validation` when malformed. */
  recipientHex(network: NetworkConfig, recipient: string, field = 'recipient'): string {
    if (network.kind === 'tron') {
      if (!isTronAddress(recipient)) throw validation(`${field}: must be a Tron address starting with T`);
      return tronToEvm(recipient);
    }
    if (!/^0x[0-9a-fA-F]{40}$/.test(recipient))
      throw validation(`${field}: must be 0x followed by 40 hex characters`);
    try {
      return getAddress(recipient);
    } catch {
      throw validation(`${field}: bad EIP-55 checksum`);
    }
  }

  /**
   * A read-only contract call at the head (`0x` return data). A revert is `validation`, an
   * unreachable node `unavailable`.
   */
  async call(network: NetworkConfig, to: string, data: string, block?: number): Promise<string> {
    // Tron answers constant calls at its latest state only; its follower reads solidified blocks, so a
    // Tron caller that needs a final answer reads after the follower has passed the block.
    if (network.kind === 'tron') return callConstant(this.clients.tronHttp(network), { contract: to, data });
    const client = this.clients.evm(network);
    const tag = block === undefined ? 'latest' : `0x${block.toString(16)}`;
    try {
      return await client.transport.request<string>('eth_call', [{ to, data }, tag]);
    } catch (error) {
      throw unavailable(`network ${network.id}: eth_call failed: ${(error as Error).message}`, error);
    }
  }

  /**
   * Whether the router already executed an order of `signer` with `nonce` (D14: checked before use),
   * at the head or, on EVM networks, at `block`. Both routers record the nonce itself the first time a
   * signed order executes (the batch router even when every item was refused), so a nonce is judged by
   * that record, never by what happened to one of its items.
   */
  async nonceUsed(
    network: NetworkConfig,
    router: string,
    signer: string,
    nonce: bigint,
    block?: number,
  ): Promise<boolean> {
    const data = await this.call(
      network,
      router,
      ROUTER_VIEWS.encodeFunctionData('nonceUsed', [signer, nonce]),
      block,
    );
    return ROUTER_VIEWS.decodeFunctionResult('nonceUsed', data)[0] as boolean;
  }

  /**
   * {@link nonceUsed} of many orders at the head, in their order: one JSON-RPC batch on EVM networks
   * (a relayer checks a whole queue before sending it), one call each on `tron`.
   */
  async nonceUsedMany(
    network: NetworkConfig,
    orders: readonly { router: string; signer: string; nonce: bigint }[],
  ): Promise<boolean[]> {
    if (orders.length === 0) return [];
    if (network.kind === 'tron')
      return Promise.all(orders.map((o) => this.nonceUsed(network, o.router, o.signer, o.nonce)));
    const answers = await this.clients.evm(network).transport.batch(
      orders.map((o) => ({
        method: 'eth_call',
        params: [{ to: o.router, data: nonceUsedCalldata(o.signer, o.nonce) }, 'latest'],
      })),
    );
    return answers.map((a) => {
      if (!a.ok) throw unavailable(`network ${network.id}: eth_call failed: ${a.error.message}`, a.error);
      return decodeBool(a.result);
    });
  }

  /** Whether item `index` of the batch with `nonce` of `signer` has been paid (at the head, or at `block`). */
  async itemPaid(
    network: NetworkConfig,
    router: string,
    signer: string,
    nonce: bigint,
    index: number,
    block?: number,
  ) {
    const calldata = ROUTER_VIEWS.encodeFunctionData('isItemPaid', [signer, nonce, index]);
    const data = await this.call(network, router, calldata, block);
    return ROUTER_VIEWS.decodeFunctionResult('isItemPaid', data)[0] as boolean;
  }

  /**
   * The logs matching `filter` in blocks from the first one at or after chain time `since` up to
   * `toBlock`: where the execution of an order created at `since` can be (its deadline bounds the
   * other end). Used only on the rare path where the router shows a nonce used and the follower has no
   * record of its execution, so it reads plainly, block range by block range.
   */
  async logsSince(
    network: NetworkConfig,
    filter: LogFilter,
    since: number,
    toBlock: number,
  ): Promise<EvmLog[]> {
    const header = async (n: number) =>
      network.kind === 'tron'
        ? (await solidifiedHeaders(this.clients.tronHttp(network), [n]))[0]
        : await this.clients.evm(network).getBlockHeader(n);
    // The first block at or after `since`: a binary search over [0, toBlock] by header timestamps.
    let lo = 0;
    let hi = toBlock;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const h = await header(mid);
      if (!h) throw unavailable(`network ${network.id}: block ${mid} is not available`);
      if (h.timestamp < since) lo = mid + 1;
      else hi = mid;
    }
    if (network.kind === 'tron') return solidifiedLogs(this.clients.tronHttp(network), filter, lo, toBlock);
    const logs: EvmLog[] = [];
    for await (const chunk of this.clients.evm(network).scanLogs({ ...filter, fromBlock: lo, toBlock }))
      logs.push(...chunk.logs);
    return logs;
  }

  /**
   * Now in the chain's own clock where it runs ahead of the wall clock (a test chain whose time was
   * moved): an order's deadline counts from the later of the two, so it is never born expired.
   */
  async chainNow(network: NetworkConfig, wallNow: Date): Promise<number> {
    const wall = Math.floor(wallNow.getTime() / 1000);
    if (network.kind === 'tron') return wall;
    const head = await this.clients.evm(network).getBlockHeader('latest');
    return Math.max(wall, head?.timestamp ?? 0);
  }

  /** The latest block's gas limit on EVM networks; undefined on `tron` (energy is bounded by fee_limit). */
  async blockGasLimit(network: NetworkConfig): Promise<bigint | undefined> {
    if (network.kind === 'tron') return undefined;
    try {
      const block = await this.clients
        .evm(network)
        .transport.request<{ gasLimit?: string } | null>('eth_getBlockByNumber', ['latest', false]);
      return block?.gasLimit ? BigInt(block.gasLimit) : undefined;
    } catch (error) {
      throw unavailable(`network ${network.id}: block not readable: ${(error as Error).message}`, error);
    }
  }

  /**
   * Tron: the energy a batch of `recipients` costs, estimated from one of its transfers as the router
   * would make it (`transferFrom` of the payout wallet, run read-only with the router as caller) plus the
   * router's own work, and the most a relay may burn on this network. The relay itself estimates the
   * whole call again before it is sent.
   */
  async tronBatchEnergy(
    target: PayoutTarget,
    first: { recipientHex: string; amountRaw: bigint },
    items: number,
  ): Promise<{ energy: bigint; prices: EnergyPrices; cap: bigint }> {
    const http = this.clients.tronHttp(target.network);
    const transfer = await estimateEnergy(http, {
      contract: target.token.address,
      data: ERC20_TRANSFER_FROM.encodeFunctionData('transferFrom', [
        target.walletHex,
        first.recipientHex,
        first.amountRaw,
      ]),
      caller: target.router,
    });
    const prices = await energyPrices(http);
    return {
      energy: TRON_ENERGY_PER_CALL + (transfer + TRON_ENERGY_PER_ITEM) * BigInt(items),
      prices,
      cap: feeLimitCap(prices, target.network.relay?.feeLimitSun),
    };
  }

  /** The payout wallet's token balance and the router's allowance, read now (base units). */
  async funds(target: PayoutTarget): Promise<{ balance: bigint; allowance: bigint }> {
    const { network, token, walletHex, router } = target;
    if (network.kind === 'tron') {
      const tron = this.clients.tronClient(network);
      const [balance, allowance] = await Promise.all([
        tron.balanceOf(token.address, walletHex),
        tron.allowance(token.address, walletHex, router),
      ]);
      return { balance, allowance };
    }
    const [balance, allowance] = await this.clients.evm(network).read([
      { kind: 'balanceOf', token: token.address, owner: walletHex },
      { kind: 'allowance', token: token.address, owner: walletHex, spender: router },
    ]);
    if (!balance?.ok || !allowance?.ok) {
      throw unavailable(
        `network ${network.id}: ${token.symbol} balance or allowance not readable: ${
          (!balance?.ok && balance?.error) || (!allowance?.ok && allowance?.error)
        }`,
      );
    }
    return { balance: balance.value, allowance: allowance.value };
  }

  /**
   * Refuses a payout the wallet cannot fund now: `insufficient_allowance` (the router may pull less) or
   * `insufficient_funds` (the wallet holds less), with D4's details in whole units.
   */
  async requireFunds(target: PayoutTarget, required: bigint): Promise<void> {
    const { balance, allowance } = await this.funds(target);
    const { token, wallet, router } = target;
    const whole = (raw: bigint) => formatUnits(raw, token.decimals);
    if (allowance < required) {
      throw new AppError(
        'insufficient_allowance',
        `the router may pull ${whole(allowance)} ${token.symbol} from ${wallet}; approve ${displayAddress(target.network, router)} for at least ${whole(required)}`,
        {
          required: whole(required),
          available: whole(allowance),
          token: token.symbol,
          owner: wallet,
          spender: displayAddress(target.network, router),
        },
      );
    }
    if (balance < required) {
      throw new AppError(
        'insufficient_funds',
        `${wallet} holds ${whole(balance)} ${token.symbol}; the payout needs ${whole(required)}`,
        { required: whole(required), available: whole(balance), token: token.symbol, owner: wallet },
      );
    }
  }
}

/** An address in the network's spelling: `T…` on `tron`, checksummed `0x` elsewhere. */
export function displayAddress(network: NetworkConfig, hex: string): string {
  return network.kind === 'tron' ? evmToTron(getAddress(hex)) : getAddress(hex);
}
