import { BlockList, isIP } from 'node:net';
import type { NetworkRegistry } from '../../chains/registry.ts';
import type { EntityManager } from '../../db/orm.ts';
import { publish } from '../../db/topic.ts';
import { AppError, notFound, validation } from '../../errors.ts';
import { encryptSecret } from '../../lib/crypto.ts';
import { newId, newSecret } from '../../lib/ids.ts';
import { ApiKey } from '../auth/auth.entity.ts';
import { credentialsChanged } from '../auth/credentials.ts';
import { assertPublicUrl } from '../webhook/ssrf.ts';
import { AllowedIp, Merchant, SettlementWallet } from './merchant.entity.ts';

const TRON_ADDRESS = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
/**
 * How long the set of networks a merchant has wallets on is cached. It only decides which networks
 * a session offers; the address a payment goes to is always read fresh.
 */
const WALLET_NETWORKS_CACHE_MS = 5_000;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface IssuedKey {
  id: string;
  /** Shown once; only an encrypted copy is stored. */
  secret: string;
  merchantId: string;
}

/** Merchant administration: the operations operators run through GraphQL and the CLI. */
export class MerchantService {
  private readonly walletNetworksCache = new Map<string, { networks: Set<string>; at: number }>();

  constructor(
    private readonly deps: {
      secretsKey: Buffer;
      networks: NetworkRegistry;
      /** Called when a key or allowlist changes, so authentication caches drop stale entries. */
      onCredentialsChanged: (merchantId: string) => void;
      /**
       * Loopback/private webhook targets allowed (development only); refused otherwise (D9). The CLI
       * passes a function: the rule the gateway recorded (webhook-rule.ts).
       */
      webhookAllowPrivate: boolean | ((em: EntityManager) => Promise<boolean>);
    },
  ) {}

  /**
   * Refuses a default webhook URL that resolves to a loopback, private or link-local address unless
   * the deployment allows them (D9). Checked by every operation that sets it, whoever calls; the sender
   * checks again at send time against DNS rebinding.
   */
  private async checkWebhookUrl(em: EntityManager, url: string | null | undefined): Promise<void> {
    if (!url) return;
    const rule = this.deps.webhookAllowPrivate;
    await assertPublicUrl(url, typeof rule === 'boolean' ? rule : await rule(em), 'webhook_url');
  }

  async create(em: EntityManager, input: { name: string; webhookUrl?: string | null }): Promise<Merchant> {
    await this.checkWebhookUrl(em, input.webhookUrl);
    const merchant = em.create(Merchant, {
      id: newId('merchant'),
      name: input.name,
      webhookUrl: input.webhookUrl ?? null,
    });
    await em.flush();
    return merchant;
  }

  async get(em: EntityManager, id: string): Promise<Merchant> {
    const merchant = await em.findOne(Merchant, { id });
    if (!merchant) throw notFound('merchant');
    return merchant;
  }

  async update(
    em: EntityManager,
    id: string,
    patch: {
      name?: string;
      displayName?: string | null;
      webhookUrl?: string | null;
      webhooksEnabled?: boolean;
      tronPayoutWallet?: string | null;
    },
  ): Promise<Merchant> {
    await this.checkWebhookUrl(em, patch.webhookUrl);
    const merchant = await this.get(em, id);
    if (patch.tronPayoutWallet && !TRON_ADDRESS.test(patch.tronPayoutWallet)) {
      throw validation('tron_payout_wallet: must be a Tron address starting with T');
    }
    em.assign(merchant, Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
    await em.flush();
    return merchant;
  }

  async issueKey(em: EntityManager, merchantId: string, label?: string | null): Promise<IssuedKey> {
    await this.get(em, merchantId);
    const secret = newSecret('sk', 32);
    const key = em.create(ApiKey, {
      id: newId('apiKey'),
      merchant: merchantId,
      label: label ?? null,
      secretSealed: encryptSecret(this.deps.secretsKey, secret),
    });
    await em.flush();
    return { id: key.id, secret, merchantId };
  }

  /** Revokes a key now, or at `at` (a rotation grace period). */
  async revokeKey(em: EntityManager, keyId: string, at: Date = new Date()): Promise<ApiKey> {
    const key = await em.findOne(ApiKey, { id: keyId });
    if (!key) throw notFound('API key');
    if (!key.revokedAt || key.revokedAt > at) key.revokedAt = at;
    await em.flush();
    await this.credentialsChanged(em, key.merchant.id);
    return key;
  }

  /** Issues a new key for the same merchant and revokes the old one after `graceSeconds`. */
  async rotateKey(
    em: EntityManager,
    keyId: string,
    graceSeconds = 0,
  ): Promise<{ issued: IssuedKey; revoked: ApiKey }> {
    const old = await em.findOne(ApiKey, { id: keyId });
    if (!old || (old.revokedAt && old.revokedAt <= new Date())) throw notFound('active API key');
    const issued = await this.issueKey(em, old.merchant.id, old.label);
    const revoked = await this.revokeKey(em, keyId, new Date(Date.now() + graceSeconds * 1000));
    return { issued, revoked };
  }

  async listKeys(em: EntityManager, merchantId: string): Promise<ApiKey[]> {
    return em.find(ApiKey, { merchant: merchantId }, { orderBy: { createdAt: 'desc' } });
  }

  async setSettlementWallet(em: EntityManager, merchantId: string, network: string, address: string) {
    await this.get(em, merchantId);
    const net = this.deps.networks.get(network);
    if (!net) throw new AppError('unsupported', `unknown network ${network}`);
    const valid = net.kind === 'tron' ? TRON_ADDRESS.test(address) : EVM_ADDRESS.test(address);
    if (!valid) throw validation(`address: not a valid ${net.kind === 'tron' ? 'Tron' : 'EVM'} address`);
    const existing = await em.findOne(SettlementWallet, { merchant: merchantId, network });
    const wallet = existing ?? em.create(SettlementWallet, { merchant: merchantId, network, address });
    wallet.address = net.kind === 'evm' ? address.toLowerCase() : address;
    await em.flush();
    this.walletNetworksCache.delete(merchantId);
    return wallet;
  }

  /** This process forgets the merchant's cached credentials now; every other process on the notification. */
  private async credentialsChanged(em: EntityManager, merchantId: string): Promise<void> {
    this.deps.onCredentialsChanged(merchantId);
    await publish(em, credentialsChanged, [{ merchantId }]);
  }

  /**
   * Networks the merchant has a settlement wallet on (cached briefly: a hot path of every session read).
   * `em` may be a function forking one, called only when the cache has to be filled.
   */
  async walletNetworks(em: EntityManager | (() => EntityManager), merchantId: string): Promise<Set<string>> {
    const cached = this.walletNetworksCache.get(merchantId);
    if (cached && Date.now() - cached.at < WALLET_NETWORKS_CACHE_MS) return cached.networks;
    const rows = await (typeof em === 'function' ? em() : em)
      .getConnection()
      .execute<Array<{ network: string }>>('select network from settlement_wallets where merchant_id = ?', [
        merchantId,
      ]);
    const networks = new Set(rows.map((r) => r.network));
    this.walletNetworksCache.set(merchantId, { networks, at: Date.now() });
    return networks;
  }

  async wallets(em: EntityManager, merchantId: string): Promise<SettlementWallet[]> {
    return em.find(SettlementWallet, { merchant: merchantId }, { orderBy: { network: 'asc' } });
  }

  /** Replaces the allowlist. An empty list accepts calls from any address. */
  async setAllowlist(em: EntityManager, merchantId: string, entries: string[]): Promise<AllowedIp[]> {
    await this.get(em, merchantId);
    const cidrs = [...new Set(entries.map(normaliseCidr))];
    await em.transactional(async (tx) => {
      await tx.nativeDelete(AllowedIp, { merchant: merchantId });
      for (const cidr of cidrs) tx.create(AllowedIp, { merchant: merchantId, cidr });
      await publish(tx, credentialsChanged, [{ merchantId }]);
    });
    this.deps.onCredentialsChanged(merchantId);
    return this.allowlist(em, merchantId);
  }

  async allowlist(em: EntityManager, merchantId: string): Promise<AllowedIp[]> {
    return em.find(AllowedIp, { merchant: merchantId }, { orderBy: { cidr: 'asc' } });
  }
}

/** Accepts `1.2.3.4`, `1.2.3.0/24`, `::1`, `2001:db8::/32`; returns the CIDR form. */
export function normaliseCidr(entry: string): string {
  const [address = '', prefix] = entry.trim().split('/');
  const family = isIP(address);
  if (!family) throw validation(`allowlist: "${entry}" is not an IP address or CIDR range`);
  const max = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? max : Number(prefix);
  if (!Number.isInteger(bits) || bits < 0 || bits > max || (prefix !== undefined && !/^\d+$/.test(prefix))) {
    throw validation(`allowlist: "${entry}" has an invalid prefix length`);
  }
  return `${address}/${bits}`;
}

/** A matcher for a set of CIDRs; IPv4-mapped IPv6 client addresses match IPv4 entries. */
export function ipMatcher(cidrs: string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', bits] = cidr.split('/');
    list.addSubnet(address, Number(bits), isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
  return (ip) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
    const address = mapped ?? ip;
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}
