import { type Endpoint, OWN_ACCOUNT } from '../endpoint.js';
import { accountViewSchema } from '../email-verification.js';

export const getAccountEndpoint = {
  operationId: 'getAccount',
  method: 'GET',
  path: '/api/Users/Me',
  ...OWN_ACCOUNT,
  summary: "The signed-in user's account (account dashboard)",
  description: 'Name, e-mail address and whether it is verified, and when the account was created.',
  success: { status: 200, description: 'The account', schema: accountViewSchema },
} satisfies Endpoint;
