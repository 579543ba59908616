import { AppError, DEFAULT_TITLES, type AppErrorOptions, type ErrorDetail, type ErrorKind } from './app-error.js';

type ErrorOptions = AppErrorOptions;

/** An AppError with its kind's default title: call sites name the rule, not the wording of the title. */
export const errorOf = (kind: ErrorKind, message: string, options: ErrorOptions = {}): AppError =>
  new AppError(kind, DEFAULT_TITLES[kind], message, options);

// Shorthands for the common cases, so call sites read as the rule they enforce.
export const badRequest = (message: string, details?: ErrorDetail[]): AppError =>
  errorOf('bad_request', message, details ? { details } : {});
export const notFound = (message: string): AppError => errorOf('not_found', message);
export const conflict = (message: string): AppError => errorOf('conflict', message);
export const unprocessable = (message: string, details?: ErrorDetail[]): AppError =>
  errorOf('unprocessable', message, details ? { details } : {});
export const payloadTooLarge = (limitBytes: number): AppError =>
  errorOf('payload_too_large', `The request body exceeds the limit of ${limitBytes} bytes`);
export const unavailable = (message: string, options: ErrorOptions = {}): AppError => errorOf('unavailable', message, options);
/** 405 with the `Allow` header HTTP requires, listing the methods the resource does support. */
export const methodNotAllowed = (allow: readonly string[], message = 'This resource does not support that method'): AppError =>
  errorOf('method_not_allowed', message, { headers: { Allow: allow.join(', ') } });
