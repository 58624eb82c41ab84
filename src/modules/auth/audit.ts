import type { EntityManager } from '../../db/orm.ts';
import { findPage, type Page, setFilters } from '../../db/pagination.ts';
import { type AppError, isAppError, unavailable } from '../../errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { type AuditOutcome, OperatorAudit } from './auth.entity.ts';

/** Who runs an audited mutation: the operator token and its name (no token: the CLI, named so). */
export interface AuditedOperator {
  operatorId: string | null;
  name: string;
}

/** What is recorded of one mutation before it runs. */
export interface AuditEntry {
  operator: AuditedOperator;
  /** The root mutation field, e.g. `revokeApiKey`. */
  operation: string;
  arguments: Record<string, unknown>;
  clientIp: string | undefined;
}

/**
 * Argument names whose values are never written: secrets, passwords, private keys, bearer tokens.
 * `token` alone is left: in this API it names an asset (`USDT`); `*Token` (`operatorToken`) is not.
 */
const SECRET_NAME = /secret|passw|passphrase|private|mnemonic|seed|credential|authorization|cookie/i;
const MATERIAL_NAME = /.(key|token)s?$/i;
/** Values that are secrets whatever they are called: the service's own API secrets and operator tokens. */
const SECRET_VALUE = /^(opk|sk)_[A-Za-z0-9_-]{16,}$/;
const REDACTED = '[redacted]';
const MAX_DEPTH = 8;
const MAX_STRING = 2_000;

/** `arguments` as the audit log keeps them: secret-looking fields replaced, long strings cut. */
export function redactArguments(args: Record<string, unknown>): Record<string, unknown> {
  return redact(args, 0) as Record<string, unknown>;
}

function redact(value: unknown, depth: number): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') {
    if (SECRET_VALUE.test(value)) return REDACTED;
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [
      name,
      isSecretName(name) ? REDACTED : redact(item, depth + 1),
    ]),
  );
}

function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) || MATERIAL_NAME.test(name);
}

/** Filter of the `operatorAuditLog` query. */
export interface AuditFilter {
  operatorId?: string | null;
  operation?: string | null;
}

/**
 * The operators' audit log: every mutation an operator token makes, recorded by the one wrapper
 * around the schema's mutations (src/graphql/operator-mutations.ts), not by each resolver.
 */
export class OperatorAuditLog {
  constructor(private readonly deps: { logger?: Logger } = {}) {}

  /**
   * Records `entry`, then runs `mutate` unless `refusal` is given (then it is recorded as `refused`
   * and thrown). Nothing runs unrecorded: a row that cannot be written refuses the mutation (503).
   * The row is written on its own connection, apart from whatever the mutation writes.
   */
  async run<T>(
    em: EntityManager,
    entry: AuditEntry,
    refusal: AppError | undefined,
    mutate: () => Promise<T>,
  ): Promise<T> {
    const log = em.fork();
    const id = newId('operatorAudit');
    try {
      await log.insert(OperatorAudit, {
        id,
        operatorToken: entry.operator.operatorId,
        operatorName: entry.operator.name,
        operation: entry.operation,
        arguments: redactArguments(entry.arguments),
        outcome: refusal ? 'refused' : 'pending',
        errorCode: refusal?.publicCode ?? null,
        clientIp: entry.clientIp ?? null,
        createdAt: new Date(),
        finishedAt: refusal ? new Date() : null,
      });
    } catch (error) {
      throw unavailable('the audit log could not be written; the mutation was not run', error);
    }
    if (refusal) throw refusal;
    try {
      const result = await mutate();
      await this.finish(log, id, 'ok', null);
      return result;
    } catch (error) {
      await this.finish(log, id, 'failed', isAppError(error) ? error.publicCode : 'internal');
      throw error;
    }
  }

  /** Entries newest first. */
  list(
    em: EntityManager,
    filter: AuditFilter,
    first: number,
    after?: string | null,
  ): Promise<Page<OperatorAudit>> {
    const where = setFilters({ operatorToken: filter.operatorId, operation: filter.operation });
    return findPage(em, OperatorAudit, where, { first, after });
  }

  /** The outcome; a failure to write it leaves `pending` (the mutation itself has happened). */
  private async finish(em: EntityManager, id: string, outcome: AuditOutcome, errorCode: string | null) {
    try {
      await em.nativeUpdate(OperatorAudit, { id }, { outcome, errorCode, finishedAt: new Date() });
    } catch (error) {
      this.deps.logger?.warn('audit outcome could not be written', { id, outcome, error });
    }
  }
}
