import type { EntityManager } from '../../db/orm.ts';
import { notFound } from '../../errors.ts';
import { sha256Hex } from '../../lib/crypto.ts';
import { newId, newSecret } from '../../lib/ids.ts';
import { OperatorToken } from './auth.entity.ts';

/** Operator bearer tokens for `/graphql`. The token is returned once; only its SHA-256 is kept. */
export class OperatorService {
  async createToken(em: EntityManager, name: string): Promise<{ id: string; token: string }> {
    const token = newSecret('opk', 32);
    const row = em.create(OperatorToken, { id: newId('operatorToken'), name, tokenHash: sha256Hex(token) });
    await em.flush();
    return { id: row.id, token };
  }

  /** Stores a token chosen elsewhere (the embedded stack keeps a stable one across restarts). */
  async ensureToken(em: EntityManager, name: string, token: string): Promise<void> {
    const tokenHash = sha256Hex(token);
    if (await em.findOne(OperatorToken, { tokenHash })) return;
    em.create(OperatorToken, { id: newId('operatorToken'), name, tokenHash });
    await em.flush();
  }

  async revokeToken(em: EntityManager, id: string): Promise<void> {
    const row = await em.findOne(OperatorToken, { id });
    if (!row) throw notFound('operator token');
    row.revokedAt ??= new Date();
    await em.flush();
  }
}
