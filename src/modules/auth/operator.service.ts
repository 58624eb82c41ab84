import type { EntityManager } from '../../db/orm.ts';
import { notFound, validation } from '../../errors.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { newId, newSecret } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { normalizeScopes, type OperatorScope } from '../../lib/operator-scopes.ts';
import { OperatorAuditLog } from './audit.ts';
import { OperatorToken } from './auth.entity.ts';
import { validUntil } from './operator-sessions.ts';

/** Most tokens `list` returns. */
const MAX_TOKENS = 500;

/** A new token: the bearer value is here once and never again. */
export interface IssuedOperatorToken {
  id: string;
  token: string;
  name: string;
  scopes: OperatorScope[];
  expiresAt: Date | null;
}

/**
 * Operator bearer tokens for `/graphql`: issue (with scopes and an optional expiry), list, revoke;
 * and the audit log of what operators did. The token is returned once; only its SHA-256 is kept.
 */
export class OperatorService {
  readonly audit: OperatorAuditLog;

  constructor(deps: { logger?: Logger } = {}) {
    this.audit = new OperatorAuditLog(deps);
  }

  async createToken(
    em: EntityManager,
    input: { name: string; scopes: readonly OperatorScope[]; expiresAt?: Date | null },
    now = new Date(),
  ): Promise<IssuedOperatorToken> {
    const scopes = normalizeScopes(input.scopes);
    if (scopes.length === 0) throw validation('scopes: at least one of read, admin');
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt && expiresAt <= now) throw validation('expires_at: must be in the future');
    const token = newSecret('opk', 32);
    const row = em.create(OperatorToken, {
      id: newId('operatorToken'),
      name: input.name,
      tokenHash: sha256Hex(token),
      scopes,
      expiresAt,
    });
    await em.flush();
    return { id: row.id, token, name: row.name, scopes, expiresAt };
  }

  /**
   * Stores an admin token chosen elsewhere (the embedded stack keeps a stable one across restarts).
   * One that exists is left as it is: a token revoked by hand stays revoked.
   */
  async ensureToken(em: EntityManager, name: string, token: string): Promise<void> {
    const tokenHash = sha256Hex(token);
    if (await em.findOne(OperatorToken, { tokenHash })) return;
    em.create(OperatorToken, {
      id: newId('operatorToken'),
      name,
      tokenHash,
      scopes: normalizeScopes(['admin']),
    });
    await em.flush();
  }

  /** Every token, revoked and expired ones too, newest first (the hash is never shown). */
  list(em: EntityManager): Promise<OperatorToken[]> {
    return em.find(OperatorToken, {}, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: MAX_TOKENS });
  }

  async get(em: EntityManager, id: string): Promise<OperatorToken> {
    const row = await em.findOne(OperatorToken, { id });
    if (!row) throw notFound('operator token');
    return row;
  }

  /**
   * Revokes now (a second revoke keeps the first time). Every API process refuses the token's next
   * request and closes its open WebSockets: the row's trigger announces the change.
   */
  async revokeToken(em: EntityManager, id: string): Promise<OperatorToken> {
    const row = await this.get(em, id);
    row.revokedAt ??= new Date();
    await em.flush();
    return row;
  }
}

/** Whether a token is usable at `now`: neither revoked nor expired. */
export function tokenActive(row: Pick<OperatorToken, 'revokedAt' | 'expiresAt'>, now = new Date()): boolean {
  const until = validUntil(row);
  return !until || until > now;
}
