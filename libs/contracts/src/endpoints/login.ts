import { type Endpoint, PUBLIC_IDENTITY_FORM } from '../endpoint.js';
import { loginRequestSchema, loginResponseSchema } from '../identity.js';
import { loginChallengeSchema } from '../two-factor.js';

export const loginEndpoint = {
  operationId: 'login',
  method: 'POST',
  path: '/api/Users/Login',
  ...PUBLIC_IDENTITY_FORM,
  summary: 'Sign a user in',
  description:
    'Returns a signed JWT (EdDSA, kid in the header, issuer acs-identity, audience acs-api, lifetime JWT_TTL_SECONDS, default 1 h) and the user ' +
    'with the effective role. A wrong password and an unknown e-mail give the same 401. Within 15 minutes, after 5 failures for an account from one ' +
    'address (that address), 30 from one address (every account), or 50 for an account from all addresses (addresses it has not signed in from): ' +
    '429 with Retry-After, the same answer for every limit and for unknown e-mails. Public keys: GET /.well-known/jwks.json.',
  requestBody: loginRequestSchema,
  success: { status: 200, description: 'Signed in', schema: loginResponseSchema },
  // Only accounts that turned two-factor sign-in on (issue 32): the spec's answer above is unchanged for every other account.
  alsoSucceeds: [
    {
      status: 202,
      description: 'Password correct, two-factor sign-in on: no token yet; complete with POST /api/Users/Login/TwoFactor',
      schema: loginChallengeSchema,
    },
  ],
  errors: { 400: 'Invalid body', 429: 'Too many failed attempts; see Retry-After' },
} satisfies Endpoint;
