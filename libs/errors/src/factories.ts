import { AppError, DEFAULT_TITLES, type AppErrorOptions, type ErrorDetail, type ErrorKind } from './app-error.js';

type ErrorOptions = AppErrorOptions;

/** An AppError with its kind's default title: call sites name the rule, not the wording of the title. */
export const errorOf = (kind: ErrorKind, message: string, options: ErrorOptions = {}): AppError =>
  new AppError(kind, DEFAULT_TITLES[kind], message, options);

// Shorthands for the common cases, so call sites read as the rule they enforce.
/** 400; with `details` it is a validation failure (validationFailed); `code` names a rule of its own otherwise. */
export const badRequest = (message: string, details?: ErrorDetail[], code?: string): AppError =>
  details ? validationFailed(message, details) : errorOf('bad_request', message, code ? { code } : {});
/**
 * 400 `validation_failed`: the input has the wrong shape or values; `details` name each field
 * (`path`) and what was expected there (`message`).
 */
export const validationFailed = (message: string, details: ErrorDetail[]): AppError =>
  errorOf('bad_request', message, {
    details,
    code: 'validation_failed',
    hint: 'Correct the fields named in details and send the request again.',
  });
/** `code` names the rule when a client could act on it differently from a plain `not_found` / `conflict` (e.g. `email_taken`). */
export const notFound = (message: string, code?: string): AppError => errorOf('not_found', message, code ? { code } : {});
export const conflict = (message: string, options: Pick<ErrorOptions, 'code' | 'hint'> = {}): AppError =>
  errorOf('conflict', message, options);
export const unprocessable = (message: string, details?: ErrorDetail[], code?: string): AppError =>
  errorOf('unprocessable', message, { ...(details ? { details } : {}), ...(code ? { code } : {}) });
export const payloadTooLarge = (limitBytes: number): AppError =>
  errorOf('payload_too_large', `The request body exceeds the limit of ${limitBytes} bytes`);
export const unavailable = (message: string, options: ErrorOptions = {}): AppError => errorOf('unavailable', message, options);
/** 405 with the `Allow` header HTTP requires, listing the methods the resource does support. */
export const methodNotAllowed = (allow: readonly string[], message = 'This resource does not support that method'): AppError =>
  errorOf('method_not_allowed', message, { headers: { Allow: allow.join(', ') } });
