import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../db/errors.ts';
import { AppError, isAppError, unavailable } from '../errors.ts';
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
    // Variable coercion errors may wrap a scalar's TypeError; they are still the caller's mistake.
    const coercion = describeCoercionError(error.message);
    if (coercion) return new AppError('validation', coercion);
    if (error.originalError) return toAppError(error.originalError);
  }
  if (isDatabaseUnavailable(error)) return unavailable('the database is unavailable; retry later', error);
  return new AppError('internal', 'internal error', undefined, { cause: error });
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
  const unknown = /Field "([^"]+)" is not defined by type/.exec(message)?.[1];
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
  return `${field ?? 'input'}: invalid value`;
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
