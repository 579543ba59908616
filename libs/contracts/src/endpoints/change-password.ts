import { type Endpoint, OWN_ACCOUNT_FORM } from '../endpoint.js';
import { changePasswordRequestSchema, changePasswordResponseSchema } from '../passwords.js';

export const changePasswordEndpoint = {
  operationId: 'changePassword',
  method: 'POST',
  path: '/api/Users/Password',
  ...OWN_ACCOUNT_FORM,
  summary: 'Change the password (account dashboard)',
  description:
    'Needs the current password; the new one follows the registration policy (400 weak_password). Every other session of the user is ' +
    'ended (their tokens answer 401 session_ended on their next request); the calling one stays. A wrong current password is 401 ' +
    'invalid_login and counts as a failed sign-in (the same limits, 429 with Retry-After).',
  requestBody: changePasswordRequestSchema,
  success: { status: 200, description: 'Changed', schema: changePasswordResponseSchema },
  errors: {
    400: 'Invalid body, or a new password the policy refuses',
    401: 'The current password is wrong',
    429: 'Too many failed attempts; see Retry-After',
  },
} satisfies Endpoint;
