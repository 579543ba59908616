import { describe, expect, it } from '@jest/globals';
import {
  AppError,
  DEFAULT_TITLES,
  errorBody,
  errorOf,
  methodNotAllowed,
  notFound,
  SPEC_ERRORS,
  toAppError,
  missingApiKeyError,
  insufficientScopeError,
  insufficientUserError,
  statusOf,
  isDependencyUnavailable,
  markDependencyUnavailable,
} from '@acs/errors';

describe('errors', () => {
  it('maps kinds to statuses', () => {
    expect(statusOf('payload_too_large')).toBe(413);
    expect(new AppError('conflict', 'Conflict', 'x').status).toBe(409);
  });

  it('renders the spec bodies verbatim', () => {
    expect(errorBody(missingApiKeyError())).toEqual({
      error: SPEC_ERRORS.missingApiKey.error,
      message: SPEC_ERRORS.missingApiKey.message,
      code: 'missing_credentials',
      hint: expect.any(String),
    });
    expect(missingApiKeyError().status).toBe(401);
    expect(errorBody(insufficientScopeError()).message).toBe('Your API key does not have the required scope');
    expect(errorBody(insufficientUserError()).message).toBe('A valid user JWT with sufficient role is required');
  });

  it('adds requestId and details only when present', () => {
    const err = new AppError('bad_request', 'Bad request', 'nope', { details: [{ path: 'a', message: 'b' }] });
    expect(errorBody(err, 'rid-1')).toEqual({
      error: 'Bad request',
      message: 'nope',
      code: 'bad_request',
      requestId: 'rid-1',
      details: [{ path: 'a', message: 'b' }],
    });
  });

  it('hides the cause of unexpected errors', () => {
    const hidden = toAppError(new Error('password=hunter2 at db.ts:42'));
    expect(hidden.status).toBe(500);
    expect(JSON.stringify(errorBody(hidden))).not.toContain('hunter2');
  });
});

describe('unreachable dependencies become 503, not 500', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code });

  it('recognises socket failures, connection-class SQLSTATEs and marked errors, also as a cause', () => {
    for (const err of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('08006'),
      withCode('57P01'),
      withCode('53300'),
      markDependencyUnavailable(new Error('Connection terminated')),
      new Error('outer', { cause: withCode('ETIMEDOUT') }),
    ]) {
      expect(isDependencyUnavailable(err)).toBe(true);
      const appError = toAppError(err);
      expect(appError.status).toBe(503);
      expect(appError.headers).toEqual({ 'retry-after': '5' });
      expect(errorBody(appError)).toEqual({
        error: 'Service unavailable',
        message: expect.not.stringMatching(/ECONN|Connection terminated/),
        code: 'unavailable',
      });
    }
  });

  it('leaves bugs and client errors alone: a protocol violation (08P01), a unique violation, a plain error stay 500', () => {
    for (const err of [
      withCode('08P01'),
      withCode('23505'),
      new Error('Connection terminated'),
      new TypeError('x is undefined'),
      'a string',
    ]) {
      expect(isDependencyUnavailable(err)).toBe(false);
      expect(toAppError(err).status).toBe(500);
    }
  });
});

describe('default titles', () => {
  it('every kind has its title, used by errorOf and the shorthands', () => {
    expect(errorBody(errorOf('unsupported_media_type', 'send JSON'))).toEqual({
      error: 'Unsupported media type',
      message: 'send JSON',
      code: 'unsupported_media_type',
    });
    expect(errorOf('gateway_timeout', 'late').status).toBe(504);
    expect(errorBody(notFound('gone')).error).toBe(DEFAULT_TITLES.not_found);
  });

  it('methodNotAllowed lists the allowed methods in Allow', () => {
    const err = methodNotAllowed(['GET', 'POST']);
    expect({ status: err.status, title: err.title, allow: err.headers?.Allow }).toEqual({
      status: 405,
      title: 'Method not allowed',
      allow: 'GET, POST',
    });
  });
});
