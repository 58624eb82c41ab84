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
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  header_too_large: 431,
  unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * Protocol-level refusals whose HTTP status says what went wrong; the envelope reports them as
 * `validation` (D2's 413, D11's 405, and alike 408, 415 and 431).
 */
const PROTOCOL_CODES = new Set<ErrorCode>([
  'method_not_allowed',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
  'header_too_large',
]);

/** Codes a client sees in the envelope. */
export type PublicErrorCode = Exclude<
  ErrorCode,
  | 'method_not_allowed'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'header_too_large'
>;

/** Every code of the envelope, in the order of ERROR_STATUS (the OpenAPI enum, the README table). */
export const PUBLIC_ERROR_CODES = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter(
  (code): code is PublicErrorCode => !PROTOCOL_CODES.has(code),
);

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
    return PROTOCOL_CODES.has(this.code) ? 'validation' : (this.code as PublicErrorCode);
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
