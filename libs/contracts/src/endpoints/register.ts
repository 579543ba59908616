import { FORM_BODY_LIMIT_BYTES, NO_USER, type Endpoint } from '../endpoint.js';
import { registerRequestSchema, registerResponseSchema } from '../identity.js';

export const registerEndpoint = {
  operationId: 'register',
  method: 'POST',
  path: '/api/Users/Register',
  scope: 'auth:register',
  user: NO_USER,
  upstream: 'identity',
  summary: 'Create a user account',
  description:
    'All four fields are required; unknown fields (a role, for instance) are ignored and change nothing. The e-mail is unique regardless of case (409). ' +
    'Password: 12 characters to 72 bytes in UTF-8, not a common or repetitive password, not containing the e-mail local part; no composition rules. ' +
    'A new account starts a trial of TRIAL_DURATION_SECONDS (14 days by default): role 1 until it ends. At most 20 registrations per client ' +
    'address an hour (429 with Retry-After); a taken e-mail is answered 409 without creating anything.',
  requestBody: registerRequestSchema,
  // The identity service parses it with its own stricter schema (e-mail and name rules, then the password policy).
  bodyReading: 'own',
  bodyLimitBytes: FORM_BODY_LIMIT_BYTES,
  success: { status: 201, description: 'Account created', schema: registerResponseSchema },
  errors: {
    400: 'Invalid body or password outside the policy',
    409: 'E-mail already registered: sign in with it, or use another address',
    429: 'Too many registrations from this address; see Retry-After',
  },
} satisfies Endpoint;
