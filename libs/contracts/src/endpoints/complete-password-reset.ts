import { type Endpoint, PUBLIC_IDENTITY_FORM } from '../endpoint.js';
import { completePasswordResetRequestSchema, completePasswordResetResponseSchema } from '../passwords.js';

export const completePasswordResetEndpoint = {
  operationId: 'completePasswordReset',
  method: 'POST',
  path: '/api/Users/PasswordReset/Complete',
  ...PUBLIC_IDENTITY_FORM,
  summary: 'Set a new password with an e-mailed reset token',
  description:
    'The token is single-use and valid 15 minutes; an unknown, used or expired one is 400 invalid_reset_token. The new password follows ' +
    'the registration policy (400 weak_password). Every session of the user is ended, and every other reset token of the user is spent.',
  requestBody: completePasswordResetRequestSchema,
  success: { status: 200, description: 'The password is changed', schema: completePasswordResetResponseSchema },
  errors: { 400: 'Invalid body, an unknown, used or expired token, or a new password the policy refuses' },
} satisfies Endpoint;
