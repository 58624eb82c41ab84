import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { AppError, ERROR_STATUS, type ErrorCode, isAppError, unavailable } from '../errors.ts';
import { toSnake } from '../lib/validation.ts';

/**
 * The one error mapper of both surfaces. An AppError keeps its code; GraphQL's own input coercion
 * errors are `validation` with the field named in API spelling; an unreachable or degraded database
 * is `unavailable` (503, retry later); anything else is `internal`, with the cause left for the log
 * and a generic message for the client.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error;
  if (error instanceof GraphQLError) {
    if (isAppError(error.originalError)) return error.originalError;
    // Already mapped once (an error built by toGraphQLError): keep its code.
    const code = error.extensions?.code;
    if (typeof code === 'string' && code !== 'internal' && Object.hasOwn(ERROR_STATUS, code))
      return new AppError(code as ErrorCode, error.message, error.extensions.details as never);
    // Variable coercion errors may wrap a scalar's TypeError; they are still the caller's mistake.
    const coercion = describeCoercionError(error.message);
    if (coercion) return new AppError('validation', coercion);
    if (isRequestError(error)) return new AppError('validation', error.message);
    if (error.originalError) return toAppError(error.originalError);
  }
  if (isDatabaseUnavailable(error)) return unavailable('the database is unavailable; retry later', error);
  return new AppError('internal', 'internal error', undefined, { cause: error });
}

/**
 * Whether a GraphQL error is the request's own fault, found before anything executed: a syntax or
 * validation error, a variable that does not coerce, an operation that is not in the document, or a
 * request graphql-yoga could not parse (it marks those with a 4xx `extensions.http.status`). Such an
 * error has no `path`; an error at a field path happened while executing and is the server's.
 */
export function isRequestError(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.path) return false;
  const status = (error.extensions?.http as { status?: unknown } | undefined)?.status;
  if (typeof status === 'number') return status >= 400 && status < 500;
  return !error.originalError || error.message.startsWith('Variable "$');
}

/**
 * The `/graphql` form of a request error: its own message, code `validation`, and the HTTP status the
 * GraphQL-over-HTTP specification gives a request that cannot execute (400, or yoga's own 405/413/415).
 * `spec: true` lets legacy `application/json` clients keep their 200 as the specification allows.
 */
export function toRequestGraphQLError(error: GraphQLError): GraphQLError {
  const http = (error.extensions?.http ?? {}) as Record<string, unknown>;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { code: 'validation', http: { spec: true, status: 400, ...http } },
  });
}

/** `Variable "$input" got invalid value 5 at "input.amount"; String cannot represent…` → `amount: must be a string`. */
function describeCoercionError(message: string): string | undefined {
  if (!message.startsWith('Variable "$')) return undefined;
  const at = /at "[a-zA-Z]+\.([^"]+)"/.exec(message)?.[1];
  const field = at
    ? at
        .split('.')
        .map((p) => p.replace(/^[a-zA-Z]+/, (k) => toSnake(k)))
        .join('.')
    : undefined;
  // A key may itself contain quotes (`{"\"x\"": 1}`), so the name runs to the last `" is not defined`.
  const unknown = /Field "(.+)" is not defined by type/.exec(message)?.[1];
  if (unknown) return `unknown field ${field ? `${field}.` : ''}${toSnake(unknown)}`;
  const missing = /Field "([^"]+)" of required type "[^"]+" was not provided/.exec(message)?.[1];
  if (missing) return `${field ? `${field}.` : ''}${toSnake(missing)}: required`;
  const type = /(String|Boolean|Int|Float|ID) cannot represent/.exec(message)?.[1];
  if (type) {
    const expected = {
      String: 'a string',
      Boolean: 'a boolean',
      Int: 'an integer',
      Float: 'a number',
      ID: 'a string',
    }[type];
    return `${field ?? 'input'}: must be ${expected}`;
  }
  if (/Expected type "[^"]+" to be an object|to be an object/.test(message))
    return `${field ?? 'body'}: must be an object`;
  if (/of non-null type "[^"]+" must not be null/.test(message))
    return `${field ?? 'input'}: must not be null`;
  // Anything else: graphql-js's own reason, which follows the echoed value after the last `; `.
  const reason =
    message.lastIndexOf('; ') > 0 ? message.slice(message.lastIndexOf('; ') + 2) : 'invalid value';
  return `${field ?? 'input'}: ${reason}`;
}

/** GraphQL error shape for `/graphql`: stable `extensions.code`, details when present. */
export function toGraphQLError(error: AppError, original?: GraphQLError): GraphQLError {
  const message = error.code === 'internal' ? 'Internal server error' : error.message;
  return new GraphQLError(message, {
    nodes: original?.nodes,
    path: original?.path,
    extensions: { code: error.publicCode, ...(error.details ? { details: error.details } : {}) },
  });
}
