import { AppError, type ErrorDetail } from './app-error.js';

// Shorthands for the common cases, so call sites read as the rule they enforce.
export const badRequest = (message: string, details?: ErrorDetail[]): AppError =>
  new AppError('bad_request', 'Bad request', message, details ? { details } : {});
export const notFound = (message: string): AppError => new AppError('not_found', 'Not found', message);
export const conflict = (message: string): AppError => new AppError('conflict', 'Conflict', message);
export const unprocessable = (message: string, details?: ErrorDetail[]): AppError =>
  new AppError('unprocessable', 'Unprocessable entity', message, details ? { details } : {});
export const payloadTooLarge = (limitBytes: number): AppError =>
  new AppError('payload_too_large', 'Payload too large', `The request body exceeds the limit of ${limitBytes} bytes`);
export const unavailable = (message: string): AppError => new AppError('unavailable', 'Service unavailable', message);
