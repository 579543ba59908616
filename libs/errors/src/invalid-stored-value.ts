import type { AppError } from './app-error.js';
import { errorOf } from './factories.js';

/**
 * SQLSTATE class 22, "data exception": the database refused a value (NUL or an invalid byte
 * sequence in text, 22021/22P05; a number out of a column's range, 22003; a string too long for
 * its column, 22001; text that is not a valid uuid or number, 22P02). Validation should have
 * caught it, so reaching here is a gap to close, but it is the client's input, not a server
 * fault: a safety net so that no text or number path can become a 500.
 */
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/** True when `err`, or an error in its cause chain, is a database's refusal of a value it was given. */
export function isInvalidStoredValue(err: unknown): boolean {
  for (
    let current = err, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    current = (current as { cause?: unknown }).cause, depth++
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DATA_EXCEPTION.test(code)) return true;
  }
  return false;
}

/** 400 in the error shape for such a refusal; the database's own text (which may quote SQL) is never shown. */
export const invalidStoredValueError = (cause: unknown): AppError =>
  errorOf('bad_request', 'A value in the request is out of range or cannot be stored', { cause });
