import { JSON_PARAM, jsonParam } from './bulk.ts';
import { ChangesNotApplied } from './fresh-reads.ts';
import type { EntityManager } from './orm.ts';
import { publish, type Topic } from './pubsub.ts';

/**
 * One transition engine for every aggregate that changes by table (sessions, payouts): a change names
 * its kind, the snapshot it was decided from (id and version) and the columns it sets. `apply` checks
 * each change against the aggregate's transition table, writes all of them with one UPDATE per distinct
 * set of columns (a batch of 100 items settles in one statement), each row guarded by the version its
 * change was computed from, and announces what was applied in the same transaction: the webhook outbox
 * row of each change whose transition names an event, the aggregate's history rows (if it keeps a
 * history), and a notification on the aggregate's topic. `applySteps` does the same for transitions
 * that follow one another on one row (a payment found already at its confirmation depth: found, then
 * completed): every step checked and announced as above, the row written once.
 *
 * A change computed from a stale version writes nothing. That result cannot be ignored: every caller
 * says what it does with it (`onStale`), either `raise` (the caller's transaction rolls back and its work
 * is retried as a whole) or `report` (the caller gets the stale changes back and retries them from a
 * fresh read, src/db/fresh-reads.ts, or answers its client).
 */

type SqlType = 'text' | 'bigint' | 'int' | 'timestamptz' | 'jsonb';

/** A column a change may write, with the TypeScript type of its value. */
export interface Column<T> {
  column: string;
  type: SqlType;
  /** Phantom: the value's type (never set). */
  readonly value?: T;
}

/** Column declarations by field name. */
export const col = {
  text: <T extends string | null = string | null>(column: string): Column<T> => ({ column, type: 'text' }),
  bigint: <T extends number | null = number | null>(column: string): Column<T> => ({
    column,
    type: 'bigint',
  }),
  timestamptz: (column: string): Column<Date | null> => ({ column, type: 'timestamptz' }),
  jsonb: <T>(column: string): Column<T> => ({ column, type: 'jsonb' }),
};

/** The fields a change may set, derived from the column map. */
export type FieldsOf<M extends Record<string, Column<unknown>>> = {
  [K in keyof M]: M[K] extends Column<infer T> ? T : never;
};

/** A transition table: what each kind of change may leave and reach, and the event it announces. */
export type TransitionTable<Status extends string, Event extends string> = Record<
  string,
  { from: readonly Status[]; to: readonly Status[]; event?: Event }
>;

export interface AggregateSpec<
  Change,
  M extends Record<string, Column<unknown>>,
  Status extends string,
  Event extends string,
  Webhook,
  Notice,
> {
  /** The table (its rows have `id`, `version`, `status`, `updated_at`). */
  table: string;
  /** How errors name a row: `<label> <id>`. */
  label: string;
  columns: M;
  /** What each kind of change may leave and reach, and the event it announces. */
  transitions: TransitionTable<Status, Event>;
  /** The row a change is for, the version it was computed from and the status it read. */
  subject(change: Change): { id: string; version: number; status: Status };
  kind(change: Change): string;
  /** The columns a change sets; a `status` among them is where it moves (else it stays). */
  set(change: Change): Partial<FieldsOf<M>>;
  /** Rules beyond the table; throws on a change that breaks them (a bug, never a race). */
  check?(change: Change, to: Status): void;
  /** The webhook of an applied change whose transition names an event, and the outbox that takes them. */
  webhooks: {
    of(change: Change, event: Event): Webhook;
    enqueue(em: EntityManager, events: Webhook[]): Promise<unknown>;
  };
  /**
   * Writes the history of the applied changes (each with the status it left and reached) in the same
   * transaction, when the aggregate keeps one.
   */
  history?(em: EntityManager, applied: { change: Change; from: Status; to: Status }[]): Promise<unknown>;
  /** Published for every applied change. */
  topic: Topic<Notice>;
  notice(change: Change): Notice;
  /** The order applied changes are announced in (default: as given). */
  order?(a: Change, b: Change): number;
}

/** What `apply` did: the ids written, and (with `onStale: 'report'`) the changes that were not. */
export interface TransitionResult<Change> {
  applied: ReadonlySet<string>;
  stale: readonly Change[];
  /**
   * The version and `updated_at` each applied row now has: what a caller answering with the row it
   * changed needs, without reading it again.
   */
  written: ReadonlyMap<string, { version: number; updatedAt: Date }>;
}

export type OnStale = 'raise' | 'report';

export interface Aggregate<Change> {
  /** Applies `changes` in `em`'s transaction; see the module comment for `onStale`. */
  apply(em: EntityManager, changes: readonly Change[], onStale: OnStale): Promise<TransitionResult<Change>>;
  /**
   * Applies, per row, transitions that follow one another, as one write of the row: each step is
   * checked against the transition table like a change of its own, starts from the status the step
   * before reached and from the version it produced; the row is written once (the steps' columns,
   * later steps winning), guarded by the version the first step read, and moves on by one version
   * per step. Every step has its history row and (where its transition names one) its event, as if
   * applied one after the other in the same transaction. Stale rows are reported by their first step.
   */
  applySteps(
    em: EntityManager,
    rows: readonly (readonly Change[])[],
    onStale: OnStale,
  ): Promise<TransitionResult<Change>>;
  /**
   * Announces changes of rows the caller has just inserted at the status the change reaches (a
   * deposit found already final is created `credited`, not created `pending` and then updated): each
   * change is checked against the transition table from the status it names as left, and announced
   * (history, event, notice) as if applied. Only rows the insert created may be passed: the caller's
   * unique constraint decides which (a replayed insert creates none, so announces nothing). The row
   * must be written with the version one past the change's and the columns of `set`; {@link columnsOf}
   * gives them.
   */
  created(em: EntityManager, changes: readonly Change[]): Promise<void>;
  /** What a created row holds for `change`: its status, version and the change's columns, by column name. */
  columnsOf(change: Change): Record<string, unknown>;
}

export function defineAggregate<
  Change,
  M extends Record<string, Column<unknown>>,
  Status extends string,
  Event extends string,
  Webhook,
  Notice,
>(spec: AggregateSpec<Change, M, Status, Event, Webhook, Notice>): Aggregate<Change> {
  const { table, columns } = spec;
  const to = (change: Change) =>
    ((spec.set(change) as { status?: Status }).status ?? spec.subject(change).status) as Status;
  const check = (change: Change) => {
    const { id, status } = spec.subject(change);
    checkMove(spec.transitions, spec.kind(change), `${spec.label} ${id}`, status, to(change));
    spec.check?.(change, to(change));
  };
  /** A row's steps: each checked, and each starting where the one before left the row. */
  const checkSteps = (steps: readonly Change[]) => {
    if (steps.length === 0) throw new Error(`${spec.label} transition: a row without a change`);
    steps.forEach((step, i) => {
      check(step);
      const before = steps[i - 1];
      if (!before) return;
      const was = spec.subject(before);
      const now = spec.subject(step);
      if (now.id !== was.id || now.version !== was.version + 1 || now.status !== to(before))
        throw new Error(`${spec.label} ${was.id}: step ${i + 1} does not start where step ${i} left it`);
    });
  };
  /** History, outbox rows and notices of the applied rows' steps. */
  const announce = async (em: EntityManager, done: (readonly Change[])[]) => {
    const all = done.flat();
    const ordered = spec.order ? [...all].sort(spec.order) : all;
    await spec.history?.(
      em,
      ordered.map((change) => ({ change, from: spec.subject(change).status, to: to(change) })),
    );
    await spec.webhooks.enqueue(
      em,
      ordered.flatMap((change) => {
        const event = spec.transitions[spec.kind(change)]?.event;
        return event ? [spec.webhooks.of(change, event)] : [];
      }),
    );
    // One notice per row: subscribers read the row, which is at its last step.
    const last = done.map((steps) => steps.at(-1)!);
    await publish(em, spec.topic, (spec.order ? last.sort(spec.order) : last).map(spec.notice));
  };
  /** The row's one write: id, the version its first step read, how many steps, the merged columns. */
  const writeOf = (steps: readonly Change[]) => {
    const { id, version } = spec.subject(steps[0]!);
    const set: Record<string, unknown> = {};
    for (const step of steps) Object.assign(set, spec.set(step));
    return { id, version, steps: steps.length, set };
  };
  async function applySteps(
    em: EntityManager,
    rows: readonly (readonly Change[])[],
    onStale: OnStale,
  ): Promise<TransitionResult<Change>> {
    for (const steps of rows) checkSteps(steps);
    // Applied is known by row: a second change of the same row would pass as applied (and announce
    // its event) although its version guard failed. Callers merge their changes per row first.
    if (new Set(rows.map((steps) => spec.subject(steps[0]!).id)).size !== rows.length)
      throw new Error(`${spec.label} transition: two changes of one row in one apply`);
    const applied = new Set<string>();
    const written = new Map<string, { version: number; updatedAt: Date }>();
    const groups = new Map<string, ReturnType<typeof writeOf>[]>();
    for (const steps of rows) {
      const write = writeOf(steps);
      const key = Object.keys(write.set).sort().join(',');
      const group = groups.get(key);
      if (group) group.push(write);
      else groups.set(key, [write]);
    }
    for (const group of groups.values()) {
      const fields = Object.keys(group[0]!.set) as (keyof M & string)[];
      const json = group.map((w) => ({ id: w.id, version: w.version, steps: w.steps, ...jsonFields(w.set) }));
      const sets = fields.map((f) => `${columns[f]!.column} = v.${columns[f]!.column}, `).join('');
      const selects = fields.map((f) => `, v."${f}"::${columns[f]!.type} as ${columns[f]!.column}`).join('');
      const types = fields.map((f) => `, "${f}" ${columns[f]!.type === 'jsonb' ? 'jsonb' : 'text'}`).join('');
      const updated = await em.execute<{ id: string; version: number; updated_at: Date | string }[]>(
        `update ${table} t set ${sets}version = t.version + v.steps, updated_at = now()
           from (select v.id, v.version, v.steps${selects}
                   from json_to_recordset(${JSON_PARAM}) as v(id text, version int, steps int${types})) v
          where t.id = v.id and t.version = v.version
          returning t.id, t.version, t.updated_at`,
        [jsonParam(json)],
      );
      for (const row of updated) {
        applied.add(row.id);
        written.set(row.id, { version: Number(row.version), updatedAt: new Date(row.updated_at) });
      }
    }
    const done = rows.filter((steps) => applied.has(spec.subject(steps[0]!).id));
    const stale = rows.filter((steps) => !applied.has(spec.subject(steps[0]!).id)).map((steps) => steps[0]!);
    if (stale.length > 0 && onStale === 'raise')
      throw new ChangesNotApplied(
        `${table} transition`,
        stale.map((c) => spec.subject(c).id),
      );
    await announce(em, done);
    return { applied, stale, written };
  }
  return {
    async created(em, changes) {
      for (const change of changes) check(change);
      if (new Set(changes.map((c) => spec.subject(c).id)).size !== changes.length)
        throw new Error(`${spec.label} transition: two changes of one row in one apply`);
      await announce(
        em,
        changes.map((change) => [change]),
      );
    },
    columnsOf(change) {
      const out: Record<string, unknown> = { status: to(change), version: spec.subject(change).version + 1 };
      for (const [field, value] of Object.entries(jsonFields(spec.set(change))))
        out[columns[field as keyof M]!.column] = value;
      return out;
    },
    apply: (em, changes, onStale) =>
      applySteps(
        em,
        changes.map((change) => [change]),
        onStale,
      ),
    applySteps,
  };
}

/** Checks a change's move against a transition table; throws naming the subject when it is not allowed. */
function checkMove<Status extends string>(
  table: TransitionTable<Status, string>,
  kind: string,
  what: string,
  from: Status,
  to: Status,
): void {
  const rule = table[kind];
  if (!(rule?.from.includes(from) && rule.to.includes(to)))
    throw new Error(`${what}: ${kind} cannot move ${from} to ${to}`);
}

/** Values as JSON for jsonb_to_recordset: dates as ISO strings, absent as null. */
function jsonFields(set: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(set)) {
    out[key] = value instanceof Date ? value.toISOString() : value === undefined ? null : value;
  }
  return out;
}
