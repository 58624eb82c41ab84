import type { EntityManager } from '../../db/orm.ts';
import { type PubSub, topic } from '../../db/pubsub.ts';
import { OperatorToken } from './auth.entity.ts';

/**
 * Announced by the `operator_tokens` trigger when a token's `revoked_at` or `expires_at` changes,
 * whoever changed it: this process, the CLI, another replica, or someone in psql.
 */
export const operatorTokenChanged = topic('operator_token_changed', ['tokenId']);

/** setTimeout's longest delay; a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** When a token stops being valid: the earlier of its revocation and its expiry; null: not foreseen. */
export function validUntil(row: Pick<OperatorToken, 'revokedAt' | 'expiresAt'>): Date | null {
  const times = [row.revokedAt, row.expiresAt].filter((t): t is Date => t instanceof Date);
  return times.length ? new Date(Math.min(...times.map((t) => t.getTime()))) : null;
}

interface Session {
  tokenId: string;
  end(): void;
  timer?: NodeJS.Timeout;
}

/**
 * The long-lived connections (GraphQL WebSockets) opened with operator tokens, each ended as soon as
 * its token stops being valid: on the change notice of a revocation (within milliseconds, in every
 * process), and by a timer at its expiry. A request checks its token itself; a WebSocket is checked
 * when it connects and then lives on, which is what this is for. Transport-agnostic: `end` closes.
 */
export class OperatorSessions {
  private readonly sessions = new Set<Session>();

  constructor(private readonly deps: { fork: () => EntityManager; now?: () => number }) {}

  /**
   * Follows token changes until the returned function is called. After the LISTEN connection was
   * down (notices missed), every watched token is read again.
   */
  follow(pubsub: PubSub): Promise<() => Promise<void>> {
    return pubsub.on(operatorTokenChanged, ({ tokenId }) => void this.recheck([tokenId]), {
      resumed: () => void this.recheck([...new Set([...this.sessions].map((s) => s.tokenId))]),
    });
  }

  /** Calls `end` once the token is no longer valid; the returned function stops watching. */
  watch(tokenId: string, until: Date | null, end: () => void): () => void {
    const session: Session = { tokenId, end };
    this.sessions.add(session);
    this.schedule(session, until);
    return () => {
      clearTimeout(session.timer);
      this.sessions.delete(session);
    };
  }

  /** Sessions watched now (tests). */
  get size(): number {
    return this.sessions.size;
  }

  private schedule(session: Session, until: Date | null): void {
    clearTimeout(session.timer);
    session.timer = undefined;
    if (!until) return;
    const wait = until.getTime() - (this.deps.now?.() ?? Date.now());
    if (wait <= 0) {
      this.end(session);
      return;
    }
    session.timer = setTimeout(
      () => (wait > MAX_TIMER_MS ? this.schedule(session, until) : this.end(session)),
      Math.min(wait, MAX_TIMER_MS),
    );
    session.timer.unref();
  }

  private end(session: Session): void {
    if (!this.sessions.delete(session)) return;
    clearTimeout(session.timer);
    session.end();
  }

  /** Reads the tokens again and ends or reschedules their sessions. */
  private async recheck(tokenIds: string[]): Promise<void> {
    const watched = [...this.sessions].filter((s) => tokenIds.includes(s.tokenId));
    if (watched.length === 0) return;
    let rows: OperatorToken[];
    try {
      rows = await this.deps.fork().find(OperatorToken, { id: { $in: tokenIds } });
    } catch {
      // The token changed and cannot be read: end its sessions (they reconnect and are checked then).
      for (const session of watched) this.end(session);
      return;
    }
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const session of watched) {
      if (!this.sessions.has(session)) continue;
      const row = byId.get(session.tokenId);
      this.schedule(session, row ? validUntil(row) : new Date(0));
    }
  }
}
