import { AppError } from './app-error.js';

/**
 * The 401 for a token whose session was ended (signed out from another device, a password change):
 * the token itself is valid and unexpired, so the code tells the client apart from a bad token and
 * the hint says what to do. Issue 32.
 */
export const sessionEndedError = (): AppError =>
  new AppError('unauthorized', 'Session ended', 'This sign-in was ended; the token is no longer accepted', {
    code: 'session_ended',
    hint: 'Sign in again (POST /api/Users/Login) for a new token.',
  });
