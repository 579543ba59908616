import { NO_FIELDS_BODY, type Endpoint, OWN_ACCOUNT } from '../endpoint.js';
import { verificationSentSchema } from '../email-verification.js';

export const resendVerificationEndpoint = {
  operationId: 'resendVerification',
  method: 'POST',
  path: '/api/Users/VerifyEmail/Resend',
  ...OWN_ACCOUNT,
  summary: 'E-mail a new verification link (account dashboard)',
  description:
    "Sends a new link to the signed-in user's address (an already verified address gets none). At most 5 links per hour per account: 429 " +
    'with Retry-After beyond. The body is optional and has no fields.',
  ...NO_FIELDS_BODY,
  success: { status: 202, description: 'Sent (or nothing to send)', schema: verificationSentSchema },
  errors: { 400: 'A body with fields', 429: 'Too many links asked for; see Retry-After' },
} satisfies Endpoint;
