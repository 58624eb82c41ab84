/** A small structured logger: one JSON line per event on stderr, levels filtered once. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

export function createLogger(level: LogLevel = 'info', base: Record<string, unknown> = {}): Logger {
  const min = LEVELS[level];
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < min) return;
    const line: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg, ...base };
    // Errors are converted before JSON.stringify, which would otherwise prefer GraphQLError's toJSON
    // (message and locations only) over the replacer.
    for (const [key, value] of Object.entries(fields ?? {}))
      line[key] = value instanceof Error ? serializeError(value, new Set()) : value;
    process.stderr.write(`${JSON.stringify(line, errorReplacer)}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return serializeError(value, new Set());
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** How far a cause chain is followed; deeper links are cut rather than flooding the log. */
const MAX_CAUSE_DEPTH = 8;

/**
 * An error as plain JSON: name, message, stack, its own scalar fields (a `code`, a pg `detail`), and
 * every error behind it — `cause`, GraphQL's `originalError`, an AggregateError's `errors` — so the
 * one log line of a 500 carries the whole chain. Cycles and very deep chains are cut.
 */
export function serializeError(error: Error, seen: Set<unknown>, depth = 0): Record<string, unknown> {
  seen.add(error);
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  for (const [key, field] of Object.entries(error)) {
    if (field === null || ['string', 'number', 'boolean'].includes(typeof field)) out[key] = field;
    else if (key === 'path' && Array.isArray(field)) out[key] = field;
  }
  if (error.stack) out.stack = error.stack;
  const link = (value: unknown): unknown => {
    if (!(value instanceof Error)) return typeof value === 'bigint' ? value.toString() : value;
    if (seen.has(value)) return { name: value.name, message: value.message, cycle: true };
    if (depth >= MAX_CAUSE_DEPTH) return { name: value.name, message: value.message, truncated: true };
    return serializeError(value, seen, depth + 1);
  };
  if (error.cause !== undefined) out.cause = link(error.cause);
  const original = (error as { originalError?: unknown }).originalError;
  if (original != null) out.originalError = link(original);
  if (error instanceof AggregateError) out.errors = error.errors.map(link);
  return out;
}
