import { NO_FIELDS_BODY, type Endpoint, OWN_ACCOUNT } from '../endpoint.js';
import { endOtherSessionsResponseSchema } from '../sessions.js';

export const endOtherSessionsEndpoint = {
  operationId: 'endOtherSessions',
  method: 'POST',
  path: '/api/Sessions/EndOthers',
  ...OWN_ACCOUNT,
  summary: 'End every session but the calling one',
  description:
    'Signs the user out everywhere else: the tokens of every other session are refused on their next request (401, code session_ended). ' +
    'The calling session stays. The body is optional and has no fields.',
  ...NO_FIELDS_BODY,
  errors: { 400: 'A body with fields' },
  success: { status: 200, description: 'How many sessions were ended', schema: endOtherSessionsResponseSchema },
} satisfies Endpoint;
