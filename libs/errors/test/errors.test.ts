import { describe, expect, it } from '@jest/globals';
import { AppError, errorBody, SPEC_ERRORS, toAppError, missingApiKeyError, insufficientScopeError, insufficientUserError, statusOf } from '@acs/errors';

describe('errors', () => {
  it('maps kinds to statuses', () => {
    expect(statusOf('payload_too_large')).toBe(413);
    expect(new AppError('conflict', 'Conflict', 'x').status).toBe(409);
  });

  it('renders the spec bodies verbatim', () => {
    expect(errorBody(missingApiKeyError())).toEqual({ error: SPEC_ERRORS.missingApiKey.error, message: SPEC_ERRORS.missingApiKey.message });
    expect(missingApiKeyError().status).toBe(401);
    expect(errorBody(insufficientScopeError()).message).toBe('Your API key does not have the required scope');
    expect(errorBody(insufficientUserError()).message).toBe('A valid user JWT with sufficient role is required');
  });

  it('adds requestId and details only when present', () => {
    const err = new AppError('bad_request', 'Bad request', 'nope', { details: [{ path: 'a', message: 'b' }] });
    expect(errorBody(err, 'rid-1')).toEqual({ error: 'Bad request', message: 'nope', requestId: 'rid-1', details: [{ path: 'a', message: 'b' }] });
  });

  it('hides the cause of unexpected errors', () => {
    const hidden = toAppError(new Error('password=hunter2 at db.ts:42'));
    expect(hidden.status).toBe(500);
    expect(JSON.stringify(errorBody(hidden))).not.toContain('hunter2');
  });
});
