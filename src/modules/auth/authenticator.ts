import { createSecretKey, type KeyObject } from 'node:crypto';
import type { EntityManager } from '../../db/orm.ts';
import type { PubSub } from '../../db/pubsub.ts';
import { AppError, unavailable } from '../../errors.ts';
import { decryptSecret, safeEqual, sha256Hex } from '../../lib/crypto.ts';
import { normalizeScopes, type OperatorScope } from '../../lib/operator-scopes.ts';
import { AllowedIp } from '../merchant/merchant.entity.ts';
import { ipMatcher } from '../merchant/merchant.service.ts';
import { ApiKey, OperatorToken } from './auth.entity.ts';
import { credentialsChanged } from './credentials.ts';
import type { NonceStore } from './nonce-store.ts';
import { OperatorSessions, validUntil } from './operator-sessions.ts';
import { MAX_SKEW_SECONDS, NONCE_PATTERN, signRequest } from './request-signing.ts';

/** Decrypted keys are cached briefly; revocation elsewhere takes effect within this time. */
const KEY_CACHE_MS = 5_000;
/** Reads of one key while credentials keep changing; the last read is used but not cached. */
const MAX_KEY_READS = 3;

export interface SignedRequest {
  method: string;
  target: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  clientIp: string | undefined;
}

interface CachedKey {
  merchantId: string;
  /** The decrypted secret as a KeyObject, made once per key read rather than once per request. */
  secret: KeyObject;
  revokedAt: Date | null;
  allows: ((ip: string) => boolean) | null;
  loadedAt: number;
}

/** `last_used_at` is written at most this often per token: a read path should not write every time. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** An operator token that verified: who, what it may do, and until when. */
export interface OperatorIdentity {
  operatorId: string;
  name: string;
  scopes: OperatorScope[];
  /** When it stops being valid (expiry or a scheduled revocation); null: not foreseen. */
  validUntil: Date | null;
}

/** A header sent once; a repeated one (an array) counts as missing. */
const singleHeader = (value: string | string[] | undefined) => (Array.isArray(value) ? undefined : value);

const unauthorized = (message: string) => new AppError('unauthorized', message);

/** Verifies signed merchant requests (D1) and operator bearer tokens. */
export class Authenticator {
  private readonly keys = new Map<string, CachedKey>();
  /** Reads of a key in flight, with the epoch each began at (shared by requests of that epoch). */
  private readonly loading = new Map<string, { epoch: number; key: Promise<CachedKey | undefined> }>();
  /**
   * Bumped by every credential change. A lookup that began before a change may have read the row as
   * it was; it reads again rather than caching that (a revoke must win over a lookup in flight).
   */
  private epoch = 0;

  /** Open operator WebSockets, closed when their token is revoked or expires. */
  readonly sessions: OperatorSessions;

  constructor(
    private readonly deps: {
      secretsKey: Buffer;
      nonces: NonceStore;
      /** Reads tokens again when they change (operator sessions). */
      fork?: () => EntityManager;
      now?: () => number;
    },
  ) {
    const fork =
      deps.fork ??
      (() => {
        throw new Error('this Authenticator was built without a database');
      });
    this.sessions = new OperatorSessions({ fork, now: deps.now });
  }

  /**
   * Checks a request in D1's order: headers, key, skew, signature → 401; nonce reuse → 401 (consumed
   * only once the signature verifies); allowlist → 403; nonce store down → 503. `em` may be a function
   * forking one: it is called only when the key has to be read (not cached).
   */
  async verify(
    em: EntityManager | (() => EntityManager),
    req: SignedRequest,
  ): Promise<{ merchantId: string; keyId: string }> {
    const keyId = singleHeader(req.headers['x-api-key']);
    const timestamp = singleHeader(req.headers['x-timestamp']);
    const nonce = singleHeader(req.headers['x-nonce']);
    const signature = singleHeader(req.headers['x-signature']);
    if (!keyId || !timestamp || !nonce || !signature) {
      throw unauthorized(
        'missing signing header: X-Api-Key, X-Timestamp, X-Nonce and X-Signature are required',
      );
    }
    if (!/^\d{1,12}$/.test(timestamp)) throw unauthorized('X-Timestamp must be Unix time in seconds');
    if (!NONCE_PATTERN.test(nonce))
      throw unauthorized('X-Nonce must be 8 to 128 characters of [A-Za-z0-9._~-]');

    const key = await this.loadKey(em, keyId);
    const now = this.deps.now?.() ?? Date.now();
    if (!key || (key.revokedAt && key.revokedAt.getTime() <= now)) throw unauthorized('unknown API key');
    if (Math.abs(now / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) {
      throw unauthorized(`X-Timestamp is more than ${MAX_SKEW_SECONDS} seconds from server time`);
    }
    const expected = signRequest(key.secret, {
      method: req.method,
      target: req.target,
      timestamp,
      nonce,
      body: req.body,
    });
    if (!safeEqual(expected, signature.toLowerCase())) throw unauthorized('signature does not match');
    if (!(await this.deps.nonces.consume(keyId, nonce))) throw unauthorized('nonce already used');
    if (key.allows && !(req.clientIp && key.allows(req.clientIp))) {
      throw new AppError('forbidden', 'caller IP address is not in the allowlist');
    }
    return { merchantId: key.merchantId, keyId };
  }

  /**
   * Resolves a bearer operator token, or undefined when unknown, revoked or expired. Checked on every
   * request (never cached), so a revocation applies to the next one.
   */
  async operator(em: EntityManager, token: string): Promise<OperatorIdentity | undefined> {
    let row: OperatorToken | null;
    try {
      row = await em.findOne(OperatorToken, { tokenHash: sha256Hex(token) });
    } catch (error) {
      throw unavailable('operator token could not be verified', error);
    }
    const now = new Date(this.deps.now?.() ?? Date.now());
    const until = row && validUntil(row);
    if (!row || (until && until <= now)) return undefined;
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      // Advisory: a failed write does not refuse a token that verified.
      await em.nativeUpdate(OperatorToken, { id: row.id }, { lastUsedAt: now }).catch(() => undefined);
    }
    return { operatorId: row.id, name: row.name, scopes: normalizeScopes(row.scopes), validUntil: until };
  }

  /**
   * Follows credential changes published by any process (a key revoked or an allowlist changed from
   * the CLI or another replica), dropping the cached credentials of that merchant at once; and
   * operator tokens revoked anywhere, closing their open sessions. Returns the unsubscribe.
   */
  async followChanges(pubsub: PubSub): Promise<() => Promise<void>> {
    const keys = await pubsub.on(credentialsChanged, ({ merchantId }) => this.forgetMerchant(merchantId));
    let tokens: () => Promise<void>;
    try {
      tokens = await this.sessions.follow(pubsub);
    } catch (error) {
      await keys();
      throw error;
    }
    return async () => {
      await tokens();
      await keys();
    };
  }

  /** Drops cached keys of a merchant after its keys or allowlist changed. */
  forgetMerchant(merchantId: string): void {
    this.epoch++;
    for (const [id, key] of this.keys) if (key.merchantId === merchantId) this.keys.delete(id);
  }

  private async loadKey(
    em: EntityManager | (() => EntityManager),
    keyId: string,
  ): Promise<CachedKey | undefined> {
    const cached = this.keys.get(keyId);
    if (cached && Date.now() - cached.loadedAt < KEY_CACHE_MS) return cached;
    if (keyId.length > 40) return undefined;
    // The requests that find a key expired together share one read: a busy server would otherwise
    // send one per request (an EntityManager and two queries each) until the first read answered.
    // Only a read begun since the last credential change is shared; a later request reads anew.
    const pending = this.loading.get(keyId);
    if (pending && pending.epoch === this.epoch) return pending.key;
    const entry = { epoch: this.epoch, key: this.readUntilSettled(em, keyId) };
    this.loading.set(keyId, entry);
    try {
      return await entry.key;
    } finally {
      if (this.loading.get(keyId) === entry) this.loading.delete(keyId);
    }
  }

  private async readUntilSettled(
    em: EntityManager | (() => EntityManager),
    keyId: string,
  ): Promise<CachedKey | undefined> {
    for (let attempt = 1; ; attempt++) {
      const epoch = this.epoch;
      const key = await this.readKey(typeof em === 'function' ? em() : em, keyId);
      const changed = this.epoch !== epoch;
      // Credentials changed while the row was read: what was read may be from before the change.
      if (changed && attempt < MAX_KEY_READS) continue;
      if (!key) this.keys.delete(keyId);
      else if (!changed) this.keys.set(keyId, key);
      return key;
    }
  }

  private async readKey(em: EntityManager, keyId: string): Promise<CachedKey | undefined> {
    let row: ApiKey | null;
    let cidrs: AllowedIp[];
    try {
      // Refreshed: a re-read must reach the database, not the EntityManager's identity map.
      row = await em.findOne(ApiKey, { id: keyId }, { refresh: true });
      cidrs = row ? await em.find(AllowedIp, { merchant: row.merchant.id }) : [];
    } catch (error) {
      throw unavailable('API key could not be verified', error);
    }
    if (!row) return undefined;
    return {
      merchantId: row.merchant.id,
      secret: createSecretKey(decryptSecret(this.deps.secretsKey, row.secretSealed), 'utf8'),
      revokedAt: row.revokedAt ?? null,
      allows: cidrs.length ? ipMatcher(cidrs.map((c) => c.cidr)) : null,
      loadedAt: Date.now(),
    };
  }
}
