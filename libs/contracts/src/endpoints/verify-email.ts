import { type Endpoint, PUBLIC_IDENTITY_FORM } from '../endpoint.js';
import { verifyEmailRequestSchema, verifyEmailResponseSchema } from '../email-verification.js';

export const verifyEmailEndpoint = {
  operationId: 'verifyEmail',
  method: 'POST',
  path: '/api/Users/VerifyEmail',
  ...PUBLIC_IDENTITY_FORM,
  summary: "Verify the account's e-mail address with the e-mailed token",
  description:
    'Registration e-mails a link with a single-use token (valid 7 days, stored only as a hash). An unknown, used or expired token is 400 ' +
    'invalid_verification_token. Where the operator requires it (REQUIRE_VERIFIED_EMAIL_FOR_KEYS), API keys can be created only after this.',
  requestBody: verifyEmailRequestSchema,
  success: { status: 200, description: 'Verified', schema: verifyEmailResponseSchema },
  errors: { 400: 'Invalid body, or an unknown, used or expired token' },
} satisfies Endpoint;
