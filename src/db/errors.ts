/**
 * SQLSTATE classes that mean the database cannot serve right now, whatever the request: connection
 * exception (08), insufficient resources (53, e.g. too many connections), operator intervention (57:
 * statement timeout, shutdown, "cannot connect now" during recovery).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57']);
/** Single states of the same kind: a lock that could not be taken in time. */
const UNAVAILABLE_STATES = new Set(['55P03']);
/** Class 08 states that are the client's fault, not an outage: a malformed protocol message. */
const CLIENT_FAULT_STATES = new Set(['08P01']);
/** Socket errors of the client. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** Errors node-postgres raises without a code. */
const CLIENT_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection error/i;

/**
 * Whether an error (as thrown by `pg` or wrapped by the ORM, which copies the driver's `code`) says the
 * database is unreachable or degraded — a 503 the caller may retry — rather than that this request or
 * our SQL is wrong.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 5) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (SOCKET_CODES.has(code) || UNAVAILABLE_STATES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code))
      return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) && !CLIENT_FAULT_STATES.has(code);
  }
  if (typeof message === 'string' && CLIENT_MESSAGES.test(message)) return true;
  // Connecting to `localhost` tries every address and fails with all of them together.
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
