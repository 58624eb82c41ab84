/**
 * Every failure a client can see has a stable code (section 7.2) mapped to an HTTP status here and
 * only here. Anything that is not an AppError is a bug and is reported as `internal` with a generic
 * message; its details go to the log, never to the client.
 */

export const ERROR_STATUS = {
  validation: 400,
  unsupported: 400,
  invalid_action: 400,
  insufficient_funds: 400,
  insufficient_allowance: 400,
  tx_reverted: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  expired: 410,
  payload_too_large: 413,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes a client sees in the envelope; 405 and 413 are reported as `validation` (D2, D11). */
export type PublicErrorCode = Exclude<ErrorCode, 'method_not_allowed' | 'payload_too_large'>;

export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra machine-readable context, e.g. D4's `required`/`available`/`spender`. */
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The code written into the envelope. */
  get publicCode(): PublicErrorCode {
    return this.code === 'method_not_allowed' || this.code === 'payload_too_large' ? 'validation' : this.code;
  }

  /** Whether the same request may succeed later (503 only; 401 needs a rebuilt request). */
  get retryable(): boolean {
    return this.code === 'unavailable';
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** Shorthands for the common cases. */
export const validation = (message: string, details?: Record<string, unknown>) =>
  new AppError('validation', message, details);
export const unsupported = (message: string) => new AppError('unsupported', message);
export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const unavailable = (message: string, cause?: unknown) =>
  new AppError('unavailable', message, undefined, { cause });
